import Foundation
import UMFAStorage
import UMFAWebAuthn

/// Verifies an assertion against a challenge this server issued, consuming the challenge:
/// the shared core of sign-in, unenroll and `validate-token` in credential mode.
struct AssertionCheck {
    let services: ServerServices
    let application: ApplicationRecord
    let traceID: String
    /// Whether failures count against the abuse limits: yes for devices; no for an application
    /// backend relaying its users' assertions (`validate-token`, authenticated by its API key),
    /// whose one address would otherwise be blocked for all of its users.
    var countsFailures = true

    struct Outcome {
        let credential: StoredCredential
        let verified: VerifiedAuthentication
    }

    /// Verifies under the abuse limits: a 401 counts as a failed attempt for the user and the
    /// client address, and a blocked caller gets 429 before anything is looked up.
    /// - Parameter expectedUserID: the user the caller names, or `nil` for a discoverable sign-in.
    func verify(_ response: AuthenticationResponseJSON, expectedUserID: String?) async throws -> Outcome {
        guard countsFailures else { return try await check(response, expectedUserID: expectedUserID) }
        return try await services.abuse.ceremony(
            application: application.id, userID: expectedUserID, traceID: traceID
        ) {
            try await check(response, expectedUserID: expectedUserID)
        }
    }

    private func check(_ response: AuthenticationResponseJSON, expectedUserID: String?) async throws -> Outcome {
        // The challenge is found through the client data, then consumed exactly once.
        let clientData: CollectedClientData
        do {
            clientData = try CollectedClientData(bytes: response.response.clientDataJSON.bytes)
        } catch {
            throw APIError.badRequest("credential.response.clientDataJSON is not valid client data", traceID: traceID)
        }
        guard let challengeBytes = Base64URL.decode(clientData.challenge),
            let challenge = try await services.store.consumeChallenge(
                challengeBytes, applicationID: application.id, ceremony: .authentication),
            challenge.expiresAt > services.now()
        else {
            throw APIError.unauthorized("The challenge is unknown, expired or already used", traceID: traceID)
        }
        if let bound = challenge.userID, let expectedUserID, bound != expectedUserID {
            throw APIError.unauthorized("The challenge was issued for another user", traceID: traceID)
        }
        let identifiedUserID = challenge.userID ?? expectedUserID
        guard
            let credential = try await services.store.credential(
                applicationID: application.id, credentialID: response.rawId.bytes)
        else {
            throw APIError.unauthorized("The credential is not registered", traceID: traceID)
        }
        guard let owner = try await services.store.user(applicationID: application.id, userID: credential.userID) else {
            throw APIError.unauthorized("The credential is not registered", traceID: traceID)
        }
        var identifiedHandle: [UInt8]?
        if let identifiedUserID {
            // Usually the owner itself, already read; another user's handle makes step 6 fail.
            let identified =
                identifiedUserID == owner.userID
                ? owner : try await services.store.user(applicationID: application.id, userID: identifiedUserID)
            guard let user = identified else {
                throw APIError.unauthorized("The credential does not belong to this user", traceID: traceID)
            }
            identifiedHandle = user.userHandle
        }
        let record = try CredentialRecordMapping.record(credential, userHandle: owner.userHandle, traceID: traceID)
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(policy: application.relyingPartyPolicy).verify(
                response, expectedChallenge: challengeBytes, credential: record, identifiedUserHandle: identifiedHandle,
                userVerification: UserVerificationRequirement(rawValue: challenge.userVerification))
        } catch {
            throw APIError.unauthorized("Authentication failed: \(error)", traceID: traceID)
        }
        var updated = credential
        updated.signCount = verified.record.signCount
        updated.backupState = verified.record.backupState
        updated.uvInitialized = verified.record.uvInitialized
        updated.lastUsedAt = services.now()
        try await services.store.updateCredentialUse(updated)
        return Outcome(credential: updated, verified: verified)
    }
}

/// Between stored credentials and the relying-party core's records.
enum CredentialRecordMapping {
    static func record(_ credential: StoredCredential, userHandle: [UInt8], traceID: String) throws -> CredentialRecord
    {
        let key: COSEKey
        do {
            key = try COSEKey(bytes: credential.publicKey)
        } catch {
            throw APIError(.internalServerError, "Internal server error", traceID: traceID)
        }
        return CredentialRecord(
            id: credential.credentialID, publicKey: key, signCount: credential.signCount, userHandle: userHandle,
            uvInitialized: credential.uvInitialized,
            transports: credential.transports.map(AuthenticatorTransport.init(rawValue:)),
            backupEligible: credential.backupEligible, backupState: credential.backupState, aaguid: credential.aaguid)
    }
}
