import Foundation
import UMFAStorage
import UMFAWebAuthn

/// Verifies an assertion against a challenge this server issued, consuming the challenge:
/// the shared core of sign-in, unenroll and `validate-token` in credential mode.
struct AssertionCheck {
    let services: ServerServices
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
                outcome = try await services.abuse.ceremony(
                    application: application.id, userID: expectedUserID, caller: caller
                ) {
                    try await check(response, expectedUserID: expectedUserID)
                }
            } else {
                outcome = try await check(response, expectedUserID: expectedUserID)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            services.metrics.ceremony(purpose, succeeded: false)
            await services.audit.record(
                .authenticationFailed, application: application.id, actor: .anonymous, userID: expectedUserID,
                credentialID: response.rawId.bytes, caller: caller,
                details: ["purpose": .string(purpose), "reason": .string(error.detail ?? error.message)])
            guard let failureMessage else { throw error }
            throw ServiceError.unauthenticated(failureMessage, detail: error.message)
        }
        services.metrics.ceremony(purpose, succeeded: true)
        await services.audit.record(
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
        // The challenge is found through the client data, then consumed exactly once.
        let (challengeBytes, challenge) = try await ChallengeLookup(services: services, application: application)
            .consume(for: response.response.clientDataJSON, ceremony: ceremony)
        // User ids are compared as bytes: a Unicode-equal spelling is another user (DESIGN.md §4).
        if let bound = challenge.userID, let expectedUserID, !bound.isSameBytes(as: expectedUserID) {
            throw ServiceError.unauthenticated("The challenge was issued for another user")
        }
        let identifiedUserID = challenge.userID ?? expectedUserID
        // The credential and its owner's user handle, in one read.
        guard
            let (credential, ownerHandle) = try await services.store.credentialWithOwnerHandle(
                applicationID: application.id, credentialID: response.rawId.bytes)
        else {
            throw ServiceError.unauthenticated("The credential is not registered")
        }
        var identifiedHandle: [UInt8]?
        if let identifiedUserID {
            // Usually the owner itself, already read; another user's handle makes step 6 fail.
            if identifiedUserID.isSameBytes(as: credential.userID) {
                identifiedHandle = ownerHandle
            } else {
                guard
                    let user = try await services.store.user(applicationID: application.id, userID: identifiedUserID)
                else {
                    throw ServiceError.unauthenticated("The credential does not belong to this user")
                }
                identifiedHandle = user.userHandle
            }
        }
        let record = try CredentialRecordMapping.record(credential, userHandle: ownerHandle)
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(policy: application.relyingPartyPolicy).verify(
                response, expectedChallenge: challengeBytes, credential: record,
                allowCredentials: challenge.allowCredentials, identifiedUserHandle: identifiedHandle,
                userVerification: UserVerificationRequirement(rawValue: challenge.userVerification.rawValue))
        } catch {
            throw ServiceError.unauthenticated("Authentication failed: \(error)")
        }
        var updated = credential
        updated.signCount = verified.record.signCount
        updated.backupState = verified.record.backupState
        updated.uvInitialized = verified.record.uvInitialized
        updated.lastUsedAt = services.now()
        // The compare is in the statement: of two assertions checked against this counter value,
        // only the first is recorded; the other is refused as a replay or a clone.
        guard try await services.store.updateCredentialUse(updated, expectedSignCount: credential.signCount) else {
            throw ServiceError.unauthenticated("The sign count changed while this assertion was checked")
        }
        return Outcome(credential: updated, verified: verified)
    }
}

/// Between stored credentials and the relying-party core's records.
enum CredentialRecordMapping {
    static func record(_ credential: StoredCredential, userHandle: [UInt8]) throws -> CredentialRecord {
        let key: COSEKey
        do {
            key = try COSEKey(bytes: credential.publicKey)
        } catch {
            throw ServiceError.internalFailure
        }
        return CredentialRecord(
            id: credential.credentialID, publicKey: key, signCount: credential.signCount, userHandle: userHandle,
            uvInitialized: credential.uvInitialized,
            transports: credential.transports.map(AuthenticatorTransport.init(rawValue:)),
            backupEligible: credential.backupEligible, backupState: credential.backupState, aaguid: credential.aaguid)
    }
}
