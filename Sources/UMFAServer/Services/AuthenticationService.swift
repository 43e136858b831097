import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Sign-in (WebAuthn L3 §7.2) and unenroll for an application's users. Knows the store, the
/// token service and the clock; nothing of HTTP.
struct AuthenticationService: Sendable {
    /// The stores sign-in and unenroll use.
    typealias Store = ApplicationStore & CredentialStore & CeremonyStore & SignInStore

    let ceremonies: Ceremonies
    let store: any Store
    let loginTokens: LoginTokens
    let signIns: SignInCredentials
    /// The server secret pseudo credential ids derive from.
    let serverSecret: [UInt8]

    /// The one answer to every failed sign-in or unenroll (docs/contract.md §4): an unknown
    /// credential, a wrong signature and a wrong challenge look alike; the reason is logged.
    static let failureMessage = "Authentication failed"

    /// Request options. For a named user they list the user's credentials; for an unknown user
    /// (or one without credentials) a stable pseudo-random id derived with the server secret, so
    /// the answer never tells whether the user exists. A named user's challenge is stored with
    /// the reads of the application and the credentials (or the pseudo credentials' sample), in
    /// one statement on PostgreSQL, whether the user has credentials or not: neither the answer
    /// nor the statements sent tell them apart.
    func options(_ request: AuthenticationOptionsRequest, caller: Caller) async throws
        -> AuthenticationOptionsResponse
    {
        let requested = try CeremonyExtensions(hints: request.hints, prf: request.prf, registration: false)
        guard let userID = request.userID else {
            return try await options(
                application: try await store.application(request.applicationID), userID: nil, caller: caller,
                requested: requested)
        }
        guard let applicationID = UUID(uuidString: request.applicationID) else {
            throw ServiceError.invalid("application_id must be a UUID")
        }
        // Unauthenticated and writes a challenge row: limited per client address. Counted
        // before the statement that finds the application, so requests naming no application
        // count too.
        try ceremonies.abuse.countOptionsRequest(caller)
        try FieldRules.checkUserID(userID)
        let challenge = Secrets.randomBytes(32)
        let pseudo = PseudoCredentials(store: store, serverSecret: serverSecret, applicationID: applicationID)
        let issue = try await store.issueSignInChallenge(
            SignInChallengeRequest(
                applicationID: applicationID, userID: userID, challenge: challenge, ceremony: .authentication,
                expiresAt: ceremonies.now().addingTimeInterval(ceremonies.challengeLifetime),
                sampleSeed: pseudo.seed(for: userID)))
        guard let application = issue.application else { throw ServiceError.unknownApplication }
        let allow =
            issue.credentials.isEmpty
            ? pseudo.descriptors(for: userID, sample: issue.sample) : issue.credentials.map(Self.descriptor)
        return response(
            application: application, challenge: challenge, allow: allow, requested: requested, caller: caller)
    }

    /// Request options for `userID` (or a discoverable credential) of `application`, with the
    /// request's own hints and PRF inputs (`requested`) beside the application's settings.
    func options(
        application: ApplicationRecord, userID: String?, caller: Caller, challenge given: [UInt8]? = nil,
        expiresAt: Date? = nil, ceremony: CeremonyKind = .authentication,
        requested: CeremonyExtensions = CeremonyExtensions()
    ) async throws -> AuthenticationOptionsResponse {
        // Unauthenticated and writes a challenge row: limited per client address.
        try ceremonies.abuse.countOptionsRequest(caller)
        var allow: [CredentialDescriptor]?
        if let userID {
            try FieldRules.checkUserID(userID)
            let credentials = try await store.credentials(applicationID: application.id, userID: userID)
            allow = credentials.map(Self.descriptor)
            if credentials.isEmpty {
                allow = try await PseudoCredentials(
                    store: store, serverSecret: serverSecret, applicationID: application.id
                )
                .descriptors(for: userID)
            }
        }
        let challenge = given ?? Secrets.randomBytes(32)
        try await store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: application.id, userID: userID,
                ceremony: ceremony, userVerification: application.userVerification,
                expiresAt: expiresAt ?? ceremonies.now().addingTimeInterval(ceremonies.challengeLifetime),
                allowCredentials: (allow ?? []).map(\.id.bytes)))
        return response(
            application: application, challenge: challenge, allow: allow ?? [], requested: requested, caller: caller)
    }

    private static func descriptor(_ credential: StoredCredential) -> CredentialDescriptor {
        CredentialDescriptor(
            id: Base64URLBytes(credential.credentialID),
            transports: credential.transports.map(AuthenticatorTransport.init(rawValue:)))
    }

    /// The options for a stored `challenge` listing `allow`.
    private func response(
        application: ApplicationRecord, challenge: [UInt8], allow: [CredentialDescriptor],
        requested: CeremonyExtensions, caller: Caller
    ) -> AuthenticationOptionsResponse {
        let extras = requested.authentication(application, allowCredentials: allow.map(\.id.bytes))
        let options = RequestOptionsJSON(
            challenge: Base64URLBytes(challenge), timeout: UInt32(ceremonies.challengeLifetime * 1000),
            rpId: application.rpID, allowCredentials: allow,
            userVerification: UserVerificationRequirement(rawValue: application.userVerification.rawValue),
            hints: extras.hints, extensions: extras.extensions)
        return AuthenticationOptionsResponse(traceID: caller.traceID, publicKey: options)
    }

    /// §7.2 against a challenge this server issued, then a login token.
    /// The application is read with the assertion's challenge, credential and abuse counters, in
    /// one statement on PostgreSQL.
    func verify(_ request: AuthenticationVerifyRequest, caller: Caller) async throws -> CeremonyResponse {
        if let userID = request.userID { try FieldRules.checkUserID(userID) }
        let (application, prepared) = try await AssertionCheck.readAhead(
            request.credential, applicationID: request.applicationID, userID: request.userID, caller: caller,
            ceremonies: ceremonies)
        var check = AssertionCheck(
            ceremonies: ceremonies, application: application, caller: caller, failureMessage: Self.failureMessage)
        check.prepared = prepared
        let outcome = try await check.verify(request.credential, expectedUserID: request.userID)
        let token = try await loginTokens.issue(
            application: application, credential: outcome.credential,
            authenticatorData: outcome.verified.authenticatorData, userpwTime: nil)
        return CeremonyResponse(
            traceID: caller.traceID, userID: outcome.credential.userID,
            credentialID: Base64URL.encode(outcome.credential.credentialID), token: token)
    }

    /// §7.2 against a challenge this server issued for `application`: the credential that
    /// signed, and what the authenticator said (for `amr`).
    func signIn(
        application: ApplicationRecord, userID: String?, credential: AuthenticationResponseJSON, caller: Caller
    ) async throws -> AssertionCheck.Outcome {
        if let userID { try FieldRules.checkUserID(userID) }
        return try await AssertionCheck(
            ceremonies: ceremonies, application: application, caller: caller, failureMessage: Self.failureMessage
        ).verify(credential, expectedUserID: userID)
    }

    /// Removes the credential that signed a fresh challenge: only its holder can unenroll it.
    func unenroll(_ request: UnenrollRequest, caller: Caller) async throws -> UnenrollResponse {
        let application = try await store.application(request.applicationID)
        try FieldRules.checkUserID(request.userID)
        let outcome = try await AssertionCheck(
            ceremonies: ceremonies, application: application, caller: caller, failureMessage: Self.failureMessage,
            purpose: "unenroll"
        ).verify(request.credential, expectedUserID: request.userID)
        if try await store.deleteCredential(
            applicationID: application.id, userID: request.userID, credentialID: outcome.credential.credentialID)
        {
            await ceremonies.audit.record(
                .credentialDeleted, application: application.id, actor: .user(request.userID), userID: request.userID,
                credentialID: outcome.credential.credentialID, caller: caller,
                details: [
                    "via": .string("unenroll"),
                    "passkey_name": outcome.credential.shownName.map(JSONValue.string) ?? .null,
                ])
            await signIns.revoke(
                in: application.id, userID: request.userID, credentialID: outcome.credential.credentialID,
                actor: .user(request.userID),
                caller: caller, via: "unenroll")
        }
        return UnenrollResponse(
            traceID: caller.traceID, userID: request.userID,
            credentialID: Base64URL.encode(outcome.credential.credentialID))
    }
}
