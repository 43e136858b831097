import Foundation
import UMFAStorage
import UMFAWebAuthn

/// The console's operator passkeys as a ``CredentialRepository``: user verification was
/// required at enrollment, and backup state is as enrolled.
struct ConsoleCredentials: CredentialRepository {
    let store: any ConsoleStore

    static let unknownCredential = "The passkey is not an operator's"

    func credential(id: [UInt8]) async throws -> ConsoleCredentialRecord? {
        try await store.consoleCredential(id: id)
    }

    func record(of stored: ConsoleCredentialRecord) throws -> CredentialRecord {
        CredentialRecord(
            id: stored.credentialID, publicKey: try COSEKey(bytes: stored.publicKey), signCount: stored.signCount,
            userHandle: stored.userHandle, uvInitialized: true, backupEligible: stored.backupEligible,
            backupState: stored.backupEligible)
    }

    func isRegistered(id: [UInt8]) async throws -> Bool {
        try await store.consoleCredential(id: id) != nil
    }

    /// The sign count and last use; the passkey as it was read (name, epoch) when recorded.
    func recordUse(_ stored: ConsoleCredentialRecord, verified: CredentialRecord, at now: Date) async throws
        -> ConsoleCredentialRecord?
    {
        try await store.updateConsoleCredentialUse(
            id: stored.credentialID, signCount: verified.signCount, expectedSignCount: stored.signCount, at: now)
            ? stored : nil
    }
}
