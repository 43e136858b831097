import Foundation
import UMFAStorage
import UMFAWebAuthn

/// What an application's WebAuthn ceremony reads and writes: its users' passkeys, its single-use
/// challenges, the attestation roots registrations are judged against, and the clock.
struct CeremonyStores: Sendable {
    /// The stores a ceremony uses.
    typealias Store = CredentialStore & CeremonyStore

    let store: any Store
    /// The attestation roots and FIDO metadata registrations are judged against.
    let attestationAnchors: AttestationTrustAnchors
    let now: @Sendable () -> Date
}
