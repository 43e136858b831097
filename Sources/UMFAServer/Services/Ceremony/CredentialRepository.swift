import Foundation
import UMFAWebAuthn

/// Where a relying party's credentials live, as ``CeremonyEngine`` needs them: an application's
/// users' passkeys (``ApplicationCredentials``) or the console's operator passkeys
/// (``ConsoleCredentials``).
protocol CredentialRepository: Sendable {
    /// A credential as the repository stores it.
    associatedtype Stored: Sendable

    /// What a refusal of an id the repository does not hold says (to the log and the audit
    /// trail; device-facing answers replace it with their one uniform message).
    static var unknownCredential: String { get }

    /// The credential with this id; `nil` when it is not one of this relying party's.
    func credential(id: [UInt8]) async throws -> Stored?

    /// The relying-party core's record of a stored credential.
    func record(of stored: Stored) throws -> CredentialRecord

    /// Whether a credential id is registered already (§7.1 step 26).
    func isRegistered(id: [UInt8]) async throws -> Bool

    /// Records a verified assertion (the record's sign count, and what else the repository keeps)
    /// when the stored sign count is still the one `stored` has, compared in the write itself;
    /// the credential as now stored, or `nil` when the count moved meanwhile (a replay or a
    /// clone, §7.2 step 22).
    func recordUse(_ stored: Stored, verified: CredentialRecord, at now: Date) async throws -> Stored?
}
