import Foundation
import Hummingbird
import UMFAContract
import UMFAStorage
import UMFAWebAuthn

/// The console's sign-in (DESIGN.md §8): an operator enrolls a passkey by presenting the admin
/// token, then signs in with it (discoverable, user verification required) for a session.
/// Every refusal counts against the caller's address like a wrong admin token.
struct ConsoleService: Sendable {
    let services: ServerServices
    var relyingParty: ConsoleRelyingParty { ConsoleRelyingParty(services: services) }
    var sessions: ConsoleSessions { ConsoleSessions(services: services) }

    static let signInFailed = "Sign-in failed"
    static let nameLength = 64

    /// An answer and the cookie it sets.
    struct Signed: Sendable {
        let answer: ConsoleSessionResponse
        let setCookie: String
    }

    /// `POST /admin/session/enroll-options`.
    func enrollOptions(_ request: ConsoleEnrollOptionsRequest, caller: Caller) async throws
        -> RegistrationOptionsResponse
    {
        try await checkAdminToken(request.adminToken, caller: caller)
        try services.abuse.countOptionsRequest(caller)
        let userHandle = Secrets.randomBytes(32)
        let challenge = try await relyingParty.newChallenge(.registration, userHandle: userHandle)
        let existing = try await services.store.consoleCredentials()
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: relyingParty.rpID, name: "UMFA admin console"),
            user: UserEntity(id: Base64URLBytes(userHandle), name: "umfa-admin", displayName: "UMFA operator"),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: RegistrationService.offeredAlgorithms.map { CredentialParameters(alg: $0) },
            timeout: UInt32(services.challengeLifetime * 1000),
            excludeCredentials: existing.map { CredentialDescriptor(id: Base64URLBytes($0.credentialID)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                residentKey: .required, requireResidentKey: true, userVerification: .required),
            attestation: AttestationConveyancePreference.none)
        return RegistrationOptionsResponse(traceID: caller.traceID, publicKey: options)
    }

    /// `POST /admin/session/enroll`: the new passkey is stored and signs in at once.
    func enroll(_ request: ConsoleEnrollRequest, caller: Caller) async throws -> Signed {
        try await checkAdminToken(request.adminToken, caller: caller)
        let name = try Self.checkedName(request.name) ?? "Passkey of \(Timestamps.rfc3339WholeSeconds(services.now()))"
        let (challengeBytes, challenge) = try await relyingParty.consumeChallenge(
            request.credential.response.clientDataJSON, ceremony: .registration)
        guard let handleText = challenge.userID, let userHandle = Base64URL.decode(handleText) else {
            throw ServiceError.unauthenticated("The challenge was not issued for an enrollment")
        }
        let verified: VerifiedRegistration
        do {
            verified = try await RegistrationVerifier(policy: relyingParty.policy).verify(
                request.credential, expectedChallenge: challengeBytes, userHandle: userHandle,
                userVerification: .required, at: services.now(),
                isRegistered: { try await services.store.consoleCredential(id: $0) != nil })
        } catch let error as WebAuthnError {
            throw ServiceError.unauthenticated("Enrollment failed", detail: "\(error)")
        }
        let credential = ConsoleCredentialRecord(
            credentialID: verified.record.id, publicKey: verified.record.publicKey.encoded,
            signCount: verified.record.signCount, userHandle: userHandle,
            backupEligible: verified.record.backupEligible, name: name, createdAt: services.now(),
            tokenEpoch: ConsoleTokenEpoch(services: services).current)
        do {
            try await services.store.insertConsoleCredential(credential)
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError.conflict("This passkey is enrolled already")
        }
        await services.audit.record(
            .adminPasskeyEnrolled, application: nil, actor: .admin, credentialID: credential.credentialID,
            caller: caller, details: ["name": .string(name)])
        return try await signIn(credential, caller: caller)
    }

    /// `POST /admin/session/options`: a discoverable sign-in.
    func signInOptions(caller: Caller) async throws -> AuthenticationOptionsResponse {
        try services.abuse.countOptionsRequest(caller)
        let challenge = try await relyingParty.newChallenge(.authentication)
        return AuthenticationOptionsResponse(
            traceID: caller.traceID,
            publicKey: RequestOptionsJSON(
                challenge: Base64URLBytes(challenge), timeout: UInt32(services.challengeLifetime * 1000),
                rpId: relyingParty.rpID, allowCredentials: [], userVerification: .required))
    }

    /// `POST /admin/session`: an operator passkey's assertion for a session.
    func signIn(_ request: ConsoleSignInRequest, caller: Caller) async throws -> Signed {
        let credential: ConsoleCredentialRecord
        do {
            credential = try await services.abuse.ceremony(
                application: ConsoleRelyingParty.challengeScope, userID: nil, caller: caller
            ) {
                try await verify(request.credential)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            await services.audit.record(
                .adminSignInFailed, application: nil, actor: .anonymous, credentialID: request.credential.rawId.bytes,
                caller: caller, details: ["reason": .string(error.detail ?? error.message)])
            throw ServiceError.unauthenticated(Self.signInFailed, detail: error.detail ?? error.message)
        }
        return try await signIn(credential, caller: caller)
    }

    /// `GET /admin/session`: the session the cookie names, with its CSRF token.
    func current(_ request: Request, caller: Caller) async throws -> ConsoleSessionResponse {
        guard let session = try await sessions.current(request) else {
            throw ServiceError.unauthenticated("Not signed in")
        }
        return try await answer(session, caller: caller)
    }

    /// `DELETE /admin/session`: ends the session (the CSRF token must come with it).
    func signOut(_ request: Request, caller: Caller) async throws -> (RemovedResponse, String) {
        guard let session = try await sessions.authorized(request) else {
            throw ServiceError.unauthenticated("Not signed in, or the X-CSRF-Token header is missing")
        }
        _ = try await services.store.deleteConsoleSession(hash: session.record.sessionHash)
        await services.audit.record(
            .adminSignedOut, application: nil, actor: .admin, credentialID: session.record.credentialID,
            caller: caller)
        return (RemovedResponse(traceID: caller.traceID), sessions.setCookie(nil))
    }

    private func verify(_ response: AuthenticationResponseJSON) async throws -> ConsoleCredentialRecord {
        let (challengeBytes, _) = try await relyingParty.consumeChallenge(
            response.response.clientDataJSON, ceremony: .authentication)
        guard let stored = try await services.store.consoleCredential(id: response.rawId.bytes) else {
            throw ServiceError.unauthenticated("The passkey is not an operator's")
        }
        // An operator passkey stands for the admin token it was enrolled with, and no other.
        guard let epoch = stored.tokenEpoch, constantTimeEqual(epoch, ConsoleTokenEpoch(services: services).current)
        else { throw ServiceError.unauthenticated("The passkey was enrolled under another admin token") }
        let record = CredentialRecord(
            id: stored.credentialID, publicKey: try COSEKey(bytes: stored.publicKey), signCount: stored.signCount,
            userHandle: stored.userHandle, uvInitialized: true, backupEligible: stored.backupEligible,
            backupState: stored.backupEligible)
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(policy: relyingParty.policy).verify(
                response, expectedChallenge: challengeBytes, credential: record, userVerification: .required)
        } catch {
            throw ServiceError.unauthenticated("Sign-in failed: \(error)")
        }
        guard
            try await services.store.updateConsoleCredentialUse(
                id: stored.credentialID, signCount: verified.record.signCount, expectedSignCount: stored.signCount,
                at: services.now())
        else { throw ServiceError.unauthenticated("The sign count changed while this assertion was checked") }
        return stored
    }

    private func signIn(_ credential: ConsoleCredentialRecord, caller: Caller) async throws -> Signed {
        let session = try await sessions.start(credentialID: credential.credentialID)
        await services.audit.record(
            .adminSignedIn, application: nil, actor: .admin, credentialID: credential.credentialID, caller: caller,
            details: ["passkey": .string(credential.name)])
        return Signed(answer: try await answer(session, caller: caller), setCookie: sessions.setCookie(session))
    }

    private func answer(_ session: ConsoleSessions.Current, caller: Caller) async throws -> ConsoleSessionResponse {
        let name = try await services.store.consoleCredential(id: session.record.credentialID)?.name ?? "passkey"
        return ConsoleSessionResponse(
            traceID: caller.traceID, csrfToken: sessions.csrfToken(for: session.value),
            expiresAt: Timestamps.rfc3339(session.record.expiresAt), passkeyName: name)
    }

    /// The admin token, judged as the admin API judges it (wrong guesses count).
    private func checkAdminToken(_ token: String, caller: Caller) async throws {
        try await AdminAuthorization(services: services).authorize(
            Caller(traceID: caller.traceID, clientAddress: caller.clientAddress, bearer: token))
    }

    static func checkedName(_ name: String?) throws -> String? {
        guard let name else { return nil }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...nameLength).contains(trimmed.count),
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw ServiceError.invalid("name must be 1 to \(nameLength) characters without control characters") }
        return trimmed
    }
}
