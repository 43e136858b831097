import Foundation
import Tracing
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The WebAuthn ceremonies (L3 §7.1, §7.2) of one relying party over its credential repository:
/// the one engine applications' users and the console's operators both go through.
///
/// It finds the challenge a response answers through its client data and consumes it exactly
/// once, verifies with the relying-party core under the party's policy, and records an
/// assertion's use with the sign count compared in the same statement. What a relying party adds
/// (the user a challenge is bound to, enrollment grants, the admin token's epoch) stays with its
/// service, which runs it between the steps.
struct CeremonyEngine<Credentials: CredentialRepository>: Sendable {
    /// Where the challenges live and what responses are verified under.
    let relyingParty: CeremonyRelyingParty
    /// The party's credentials.
    let credentials: Credentials
    /// The challenges table.
    let challenges: any CeremonyStore
    let now: @Sendable () -> Date

    /// A challenge found through a response's client data and consumed.
    struct Challenge: Sendable {
        /// The challenge bytes the response must have signed.
        let bytes: [UInt8]
        /// What was stored with it: user, ceremony, user verification, grant.
        let record: ChallengeRecord
    }

    /// The challenge a response answers, consumed now; 400 when the client data cannot be read,
    /// 401 when the challenge is unknown, expired, used or of another ceremony.
    func consumeChallenge(_ clientDataJSON: Base64URLBytes, ceremony: CeremonyKind) async throws -> Challenge {
        let clientData: CollectedClientData
        do {
            clientData = try CollectedClientData(bytes: clientDataJSON.bytes)
        } catch {
            throw ServiceError.invalid(Self.unreadableClientData)
        }
        guard let bytes = Base64URL.decode(clientData.challenge),
            let challenge = try await challenges.consumeChallenge(
                bytes, applicationID: relyingParty.challengeScope, ceremony: ceremony),
            challenge.expiresAt > now()
        else {
            throw ServiceError.unauthenticated("The challenge is unknown, expired or already used")
        }
        return Challenge(bytes: bytes, record: challenge)
    }

    static var unreadableClientData: String { "credential.response.clientDataJSON is not valid client data" }

    /// The challenge an assertion's client data names; `nil` when the client data cannot be read.
    /// A challenge that is not base64url is empty bytes, which name no stored challenge: it is
    /// refused as an unknown challenge, as it always was.
    static func challenge(of response: AuthenticationResponseJSON) -> [UInt8]? {
        guard let clientData = try? CollectedClientData(bytes: response.response.clientDataJSON.bytes) else {
            return nil
        }
        return Base64URL.decode(clientData.challenge) ?? []
    }

    /// The stored challenge `stored`, consumed now, for a response that must have signed `signed`
    /// instead: an out-of-band decision signs a challenge derived from the transaction's
    /// (``ApprovalChallenge/decision(_:decision:matchingNumber:)``). 401 when `stored` is unknown,
    /// expired, used or of another ceremony.
    func consumeChallenge(stored: [UInt8], signed: [UInt8], ceremony: CeremonyKind) async throws -> Challenge {
        guard
            let challenge = try await challenges.consumeChallenge(
                stored, applicationID: relyingParty.challengeScope, ceremony: ceremony),
            challenge.expiresAt > now()
        else {
            throw ServiceError.unauthenticated("The challenge is unknown, expired or already used")
        }
        return Challenge(bytes: signed, record: challenge)
    }

    /// §7.2 for an assertion answering `challenge`: the credential found in the repository,
    /// `admit` run on it, the assertion verified (user verification and `allowCredentials` as
    /// the challenge was issued), and its use recorded; every refusal is 401.
    /// - Parameter admit: the relying party's own checks of the credential found, which throw
    ///   to refuse it; returns the user handle of the user the caller identified, if any (step 6).
    func verifyAssertion(
        _ response: AuthenticationResponseJSON, challenge: Challenge,
        admit: (Credentials.Stored) async throws -> [UInt8]? = { _ in nil }
    ) async throws -> (stored: Credentials.Stored, verified: VerifiedAuthentication) {
        try await QuietSpan.run("WebAuthn assertion") { span in
            let (stored, verified) = try await unspannedVerifyAssertion(response, challenge: challenge, admit: admit)
            span.attributes["umfa.webauthn.user_verified"] = verified.userVerified
            return (stored, verified)
        }
    }

    /// §7.2 for an assertion answering `challenge` by the credential `found` (read by the
    /// caller with its other rows; `nil` when the repository holds none with the response's id):
    /// `admit` run on it and the assertion verified, every refusal 401. Records nothing: the
    /// caller records the use, with the sign count compared in its write.
    func verifyAssertion(
        _ response: AuthenticationResponseJSON, challenge: Challenge, found: Credentials.Stored?,
        admit: (Credentials.Stored) async throws -> [UInt8]?
    ) async throws -> (stored: Credentials.Stored, verified: VerifiedAuthentication) {
        try await QuietSpan.run("WebAuthn assertion") { span in
            let (stored, verified) = try await verifyFound(response, challenge: challenge, found: found, admit: admit)
            span.attributes["umfa.webauthn.user_verified"] = verified.userVerified
            return (stored, verified)
        }
    }

    private func unspannedVerifyAssertion(
        _ response: AuthenticationResponseJSON, challenge: Challenge,
        admit: (Credentials.Stored) async throws -> [UInt8]?
    ) async throws -> (stored: Credentials.Stored, verified: VerifiedAuthentication) {
        let found = try await credentials.credential(id: response.rawId.bytes)
        let (stored, verified) = try await verifyFound(response, challenge: challenge, found: found, admit: admit)
        // The compare is in the statement: of two assertions checked against this counter value,
        // only the first is recorded; the other is refused as a replay or a clone.
        guard let updated = try await credentials.recordUse(stored, verified: verified.record, at: now()) else {
            throw ServiceError.unauthenticated("The sign count changed while this assertion was checked")
        }
        return (updated, verified)
    }

    private func verifyFound(
        _ response: AuthenticationResponseJSON, challenge: Challenge, found: Credentials.Stored?,
        admit: (Credentials.Stored) async throws -> [UInt8]?
    ) async throws -> (stored: Credentials.Stored, verified: VerifiedAuthentication) {
        guard let stored = found else {
            // Only for a discoverable sign-in (no user named, no allowCredentials) is the id the
            // browser's own choice; for a named user the id may be a pseudo one (listed in the
            // options, not with the challenge), whose refusal must look like any other.
            throw ServiceError.unauthenticated(
                Credentials.unknownCredential,
                reason: challenge.record.userID == nil && challenge.record.allowCredentials.isEmpty
                    ? .unknownCredential : nil)
        }
        let identifiedHandle = try await admit(stored)
        let record = try credentials.record(of: stored)
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(policy: relyingParty.policy).verify(
                response, expectedChallenge: challenge.bytes, credential: record,
                allowCredentials: challenge.record.allowCredentials, identifiedUserHandle: identifiedHandle,
                userVerification: UserVerificationRequirement(rawValue: challenge.record.userVerification.rawValue))
        } catch {
            throw ServiceError.unauthenticated("Authentication failed: \(error)")
        }
        return (stored, verified)
    }

    /// §7.1 for a registration answering `challenge`, for the user with `userHandle`, under the
    /// party's registration policy; a credential id the repository holds already is refused
    /// (step 26). Throws the relying-party core's ``WebAuthnError``, which each caller answers.
    func verifyRegistration(_ response: RegistrationResponseJSON, challenge: Challenge, userHandle: [UInt8])
        async throws -> VerifiedRegistration
    {
        try await QuietSpan.run("WebAuthn registration") { span in
            let verified = try await RegistrationVerifier(policy: relyingParty.registrationPolicy).verify(
                response, expectedChallenge: challenge.bytes, userHandle: userHandle,
                userVerification: UserVerificationRequirement(rawValue: challenge.record.userVerification.rawValue),
                at: now(), isRegistered: { try await credentials.isRegistered(id: $0) })
            span.attributes["umfa.webauthn.attestation_format"] = verified.format
            return verified
        }
    }
}
