import Foundation
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// An application's users' passkeys as a ``CredentialRepository``: each found with its owner's
/// user handle in one read.
struct ApplicationCredentials: CredentialRepository {
    let store: any CredentialStore
    let applicationID: UUID

    /// A stored credential and its owner's user handle.
    struct Owned: Sendable {
        let credential: StoredCredential
        let ownerHandle: [UInt8]
    }

    static let unknownCredential = "The credential is not registered"

    func credential(id: [UInt8]) async throws -> Owned? {
        try await store.credentialWithOwnerHandle(applicationID: applicationID, credentialID: id)
            .map { Owned(credential: $0.credential, ownerHandle: $0.ownerHandle) }
    }

    func record(of stored: Owned) throws -> CredentialRecord {
        try CredentialRecordMapping.record(stored.credential, userHandle: stored.ownerHandle)
    }

    func isRegistered(id: [UInt8]) async throws -> Bool {
        try await store.credential(applicationID: applicationID, credentialID: id) != nil
    }

    /// `credential` after the verified use `verified` at `now`: the sign count, backup state, UV
    /// history and last use.
    static func used(_ credential: StoredCredential, verified: CredentialRecord, at now: Date) -> StoredCredential {
        var updated = credential
        updated.signCount = verified.signCount
        updated.backupState = verified.backupState
        updated.uvInitialized = verified.uvInitialized
        updated.lastUsedAt = now
        return updated
    }

    /// The sign count, backup state, UV history and last use.
    func recordUse(_ stored: Owned, verified: CredentialRecord, at now: Date) async throws -> Owned? {
        let updated = Self.used(stored.credential, verified: verified, at: now)
        guard try await store.updateCredentialUse(updated, expectedSignCount: stored.credential.signCount) else {
            return nil
        }
        return Owned(credential: updated, ownerHandle: stored.ownerHandle)
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
