import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Verifies an assertion of an application's user against a challenge this server issued,
/// through the one ``CeremonyEngine``: the shared core of sign-in, unenroll and
/// `validate-token` in credential mode, under the abuse limits and with its audit events.
struct AssertionCheck {
    let ceremonies: Ceremonies
    let application: ApplicationRecord
    let caller: Caller
    /// Whether failures count against the abuse limits: yes for devices; no for an application
    /// backend relaying its users' assertions (`validate-token`, authenticated by its API key),
    /// whose one address would otherwise be blocked for all of its users.
    var countsFailures = true
    /// For device-facing routes, the one message every 401 is answered with, so failures do not
    /// tell an unknown credential from a wrong signature (the reason goes to the log);
    /// `nil` keeps the reasons, which `validate-token` documents for its API-key holders.
    var failureMessage: String?
    /// Why the assertion is checked, for the audit log: `sign_in`, `unenroll`, `validate_token`.
    var purpose = "sign_in"
    /// The kind of challenge the response must answer.
    var ceremony: CeremonyKind = .authentication
    /// For an out-of-band decision: the transaction's stored challenge, consumed, and the
    /// challenge derived from it that the response must have signed; `nil` when the response
    /// signs a stored challenge itself.
    var derivedChallenge: (stored: [UInt8], signed: [UInt8])?

    struct Outcome {
        let credential: StoredCredential
        let verified: VerifiedAuthentication
    }

    /// Verifies under the abuse limits: a 401 counts as a failed attempt for the user and the
    /// client address, and a blocked caller gets 429 before anything is looked up.
    /// - Parameter expectedUserID: the user the caller names, or `nil` for a discoverable sign-in.
    func verify(_ response: AuthenticationResponseJSON, expectedUserID: String?) async throws -> Outcome {
        let outcome: Outcome
        do {
            if countsFailures {
                outcome = try await ceremonies.abuse.ceremony(
                    application: application.id, userID: expectedUserID, caller: caller
                ) {
                    try await check(response, expectedUserID: expectedUserID)
                }
            } else {
                outcome = try await check(response, expectedUserID: expectedUserID)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            ceremonies.metrics.ceremony(purpose, succeeded: false)
            await ceremonies.audit.record(
                .authenticationFailed, application: application.id, actor: .anonymous, userID: expectedUserID,
                credentialID: response.rawId.bytes, caller: caller,
                details: ["purpose": .string(purpose), "reason": .string(error.detail ?? error.message)])
            guard let failureMessage else { throw error }
            throw ServiceError.unauthenticated(
                failureMessage, detail: error.message, reason: error.reason == .unknownCredential ? error.reason : nil)
        }
        ceremonies.metrics.ceremony(purpose, succeeded: true)
        await ceremonies.audit.record(
            .authenticationSucceeded, application: application.id, actor: .user(outcome.credential.userID),
            userID: outcome.credential.userID, credentialID: outcome.credential.credentialID, caller: caller,
            details: [
                "purpose": .string(purpose),
                "user_verified": .bool(outcome.verified.authenticatorData.flags.isUserVerified),
                "backed_up": .bool(outcome.credential.backupState),
            ])
        return outcome
    }

    private func check(_ response: AuthenticationResponseJSON, expectedUserID: String?) async throws -> Outcome {
        let engine = CeremonyEngine(application: application, ceremonies: ceremonies)
        // The challenge is found through the client data, then consumed exactly once.
        let challenge =
            if let derivedChallenge {
                try await engine.consumeChallenge(
                    stored: derivedChallenge.stored, signed: derivedChallenge.signed, ceremony: ceremony)
            } else {
                try await engine.consumeChallenge(response.response.clientDataJSON, ceremony: ceremony)
            }
        // User ids are compared as bytes: a Unicode-equal spelling is another user (docs/contract.md §4).
        if let bound = challenge.record.userID, let expectedUserID, !bound.isSameBytes(as: expectedUserID) {
            throw ServiceError.unauthenticated("The challenge was issued for another user")
        }
        let identifiedUserID = challenge.record.userID ?? expectedUserID
        // The credential comes with its owner's user handle, in one read.
        let (found, verified) = try await engine.verifyAssertion(response, challenge: challenge) { found in
            guard let identifiedUserID else { return nil }
            // Usually the owner itself, already read; another user's handle makes step 6 fail.
            if identifiedUserID.isSameBytes(as: found.credential.userID) { return found.ownerHandle }
            guard let user = try await ceremonies.store.user(applicationID: application.id, userID: identifiedUserID)
            else {
                throw ServiceError.unauthenticated("The credential does not belong to this user")
            }
            return user.userHandle
        }
        return Outcome(credential: found.credential, verified: verified)
    }
}
