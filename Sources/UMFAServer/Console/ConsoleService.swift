import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The console's sign-in (docs/contract.md §8): an operator enrolls a passkey by presenting the admin
/// token, then signs in with it (discoverable, user verification required) for a session.
/// Every refusal counts against the caller's address like a wrong admin token. The ceremonies
/// run on the applications' engine (``CeremonyEngine``); the session cookie and the CSRF header
/// are read and written at the HTTP edge, which passes their values in.
struct ConsoleService: Sendable {
    let relyingParty: ConsoleRelyingParty
    let sessions: ConsoleSessions
    /// The admin token check, shared with the admin API.
    let adminTokenCheck: AdminTokenCheck
    let store: any ConsoleStore
    let abuse: AbuseGuard
    let audit: AuditLog
    let now: @Sendable () -> Date

    static let signInFailed = "Sign-in failed"
    static let nameLength = 64

    /// An answer and the session it started, whose value the edge sets as the cookie.
    struct Signed: Sendable {
        let answer: ConsoleSessionResponse
        let session: ConsoleSessions.Current
    }

    /// `POST /admin/session/enroll-options`.
    func enrollOptions(_ request: ConsoleEnrollOptionsRequest, caller: Caller) async throws
        -> RegistrationOptionsResponse
    {
        try await checkAdminToken(request.adminToken, caller: caller)
        try abuse.countOptionsRequest(caller)
        let userHandle = Secrets.randomBytes(32)
        let challenge = try await relyingParty.newChallenge(.registration, userHandle: userHandle)
        let existing = try await store.consoleCredentials()
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: relyingParty.rpID, name: "UMFA admin console"),
            user: UserEntity(id: Base64URLBytes(userHandle), name: "umfa-admin", displayName: "UMFA operator"),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: RegistrationService.offeredAlgorithms.map { CredentialParameters(alg: $0) },
            timeout: UInt32(relyingParty.challengeLifetime * 1000),
            excludeCredentials: existing.map { CredentialDescriptor(id: Base64URLBytes($0.credentialID)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                residentKey: .required, requireResidentKey: true, userVerification: .required),
            attestation: AttestationConveyancePreference.none)
        return RegistrationOptionsResponse(traceID: caller.traceID, publicKey: options)
    }

    /// `POST /admin/session/enroll`: the new passkey is stored and signs in at once.
    func enroll(_ request: ConsoleEnrollRequest, caller: Caller) async throws -> Signed {
        try await checkAdminToken(request.adminToken, caller: caller)
        let name = try Self.checkedName(request.name) ?? "Passkey of \(Timestamps.rfc3339WholeSeconds(now()))"
        let engine = relyingParty.engine
        let challenge = try await engine.consumeChallenge(
            request.credential.response.clientDataJSON, ceremony: .registration)
        guard let handleText = challenge.record.userID, let userHandle = Base64URL.decode(handleText) else {
            throw ServiceError.unauthenticated("The challenge was not issued for an enrollment")
        }
        let verified: VerifiedRegistration
        do {
            verified = try await engine.verifyRegistration(
                request.credential, challenge: challenge, userHandle: userHandle)
        } catch let error as WebAuthnError {
            throw ServiceError.unauthenticated("Enrollment failed", detail: "\(error)")
        }
        let credential = ConsoleCredentialRecord(
            credentialID: verified.record.id, publicKey: verified.record.publicKey.encoded,
            signCount: verified.record.signCount, userHandle: userHandle,
            backupEligible: verified.record.backupEligible, name: name, createdAt: now(),
            tokenEpoch: sessions.epoch.current)
        do {
            try await store.insertConsoleCredential(credential)
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError.conflict("This passkey is enrolled already")
        }
        await audit.record(
            .adminPasskeyEnrolled, application: nil, actor: .admin, credentialID: credential.credentialID,
            caller: caller, details: ["name": .string(name)])
        return try await signIn(credential, caller: caller)
    }

    /// `POST /admin/session/options`: a discoverable sign-in.
    func signInOptions(caller: Caller) async throws -> AuthenticationOptionsResponse {
        try abuse.countOptionsRequest(caller)
        let challenge = try await relyingParty.newChallenge(.authentication)
        return AuthenticationOptionsResponse(
            traceID: caller.traceID,
            publicKey: RequestOptionsJSON(
                challenge: Base64URLBytes(challenge), timeout: UInt32(relyingParty.challengeLifetime * 1000),
                rpId: relyingParty.rpID, allowCredentials: [], userVerification: .required))
    }

    /// `POST /admin/session`: an operator passkey's assertion for a session.
    func signIn(_ request: ConsoleSignInRequest, caller: Caller) async throws -> Signed {
        let credential: ConsoleCredentialRecord
        do {
            credential = try await abuse.ceremony(
                application: ConsoleRelyingParty.challengeScope, userID: nil, caller: caller
            ) {
                try await verify(request.credential)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            await audit.record(
                .adminSignInFailed, application: nil, actor: .anonymous, credentialID: request.credential.rawId.bytes,
                caller: caller, details: ["reason": .string(error.detail ?? error.message)])
            throw ServiceError.unauthenticated(
                Self.signInFailed, detail: error.detail ?? error.message,
                reason: error.reason == .unknownCredential ? error.reason : nil)
        }
        return try await signIn(credential, caller: caller)
    }

    /// `GET /admin/session`: the session the cookie's `value` names, with its CSRF token.
    func current(cookie value: String?, caller: Caller) async throws -> ConsoleSessionResponse {
        guard let session = try await sessions.current(cookie: value) else {
            throw ServiceError.unauthenticated("Not signed in")
        }
        return try await answer(session, caller: caller)
    }

    /// `DELETE /admin/session`: ends the session of the cookie `value` (its CSRF token must
    /// come with it); the edge then removes the cookie.
    func signOut(cookie value: String?, csrfToken: String?, caller: Caller) async throws -> RemovedResponse {
        guard let session = try await sessions.authorized(cookie: value, csrfToken: csrfToken) else {
            throw ServiceError.unauthenticated("Not signed in, or the X-CSRF-Token header is missing")
        }
        _ = try await store.deleteConsoleSession(hash: session.record.sessionHash)
        await audit.record(
            .adminSignedOut, application: nil, actor: .admin, credentialID: session.record.credentialID,
            caller: caller)
        return RemovedResponse(traceID: caller.traceID)
    }

    private func verify(_ response: AuthenticationResponseJSON) async throws -> ConsoleCredentialRecord {
        let engine = relyingParty.engine
        let challenge = try await engine.consumeChallenge(response.response.clientDataJSON, ceremony: .authentication)
        let epoch = sessions.epoch.current
        return try await engine.verifyAssertion(response, challenge: challenge) { stored in
            // An operator passkey stands for the admin token it was enrolled with, and no other.
            guard let enrolled = stored.tokenEpoch, constantTimeEqual(enrolled, epoch) else {
                throw ServiceError.unauthenticated("The passkey was enrolled under another admin token")
            }
            return nil
        }.stored
    }

    private func signIn(_ credential: ConsoleCredentialRecord, caller: Caller) async throws -> Signed {
        let session = try await sessions.start(credentialID: credential.credentialID)
        await audit.record(
            .adminSignedIn, application: nil, actor: .admin, credentialID: credential.credentialID, caller: caller,
            details: ["passkey": .string(credential.name)])
        return Signed(answer: try await answer(session, caller: caller), session: session)
    }

    private func answer(_ session: ConsoleSessions.Current, caller: Caller) async throws -> ConsoleSessionResponse {
        let name = try await store.consoleCredential(id: session.record.credentialID)?.name ?? "passkey"
        return ConsoleSessionResponse(
            traceID: caller.traceID, csrfToken: sessions.csrfToken(for: session.value),
            expiresAt: Timestamps.rfc3339(session.record.expiresAt), passkeyName: name)
    }

    /// The admin token, judged as the admin API judges it (wrong guesses count).
    private func checkAdminToken(_ token: String, caller: Caller) async throws {
        try await adminTokenCheck.authorize(
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
