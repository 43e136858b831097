import Foundation
import UMFAStorage

/// A user's recovery codes as they are issued and kept: a new set of ``RecoveryCodeService/count``
/// codes replaces the old, stored as SHA-256 hashes of their canonical form only, and audited as
/// `recovery.codes_created`. The self-service routes and the admin API issue through it; redeeming
/// is ``RecoveryCodeService``'s.
struct RecoveryCodes: Sendable {
    let store: any SelfServiceStore
    let audit: AuditLog
    let now: @Sendable () -> Date

    /// Issues a new set for `userID` of `application`; the codes are shown once, to the caller.
    func issue(application: UUID, userID: String, actor: AuditActor, caller: Caller) async throws
        -> [String]
    {
        let codes = (0..<RecoveryCodeService.count).map { _ in RecoveryCodeService.makeCode() }
        try await store.setRecoveryCodes(
            applicationID: application, userID: userID,
            hashes: codes.map { Secrets.hash(RecoveryCodeService.canonical($0)) },
            at: now())
        await audit.record(
            .recoveryCodesCreated, application: application, actor: actor, userID: userID, caller: caller,
            details: ["count": .number(Double(codes.count))])
        return codes
    }
}
