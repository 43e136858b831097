import Foundation
import UMFAStorage
import UMFAWebAuthn

/// What an application's WebAuthn ceremonies are built from (docs/development.md, "Ports"): its
/// users' passkeys and single-use challenges, the attestation roots registrations are judged
/// against, how long a challenge lives, the abuse limits every verification goes through, the
/// ceremony metrics, the audit log and the clock.
struct Ceremonies: Sendable {
    /// The stores a ceremony uses.
    typealias Store = ApplicationStore & CredentialStore & CeremonyStore & SignInStore

    let store: any Store
    /// The attestation roots and FIDO metadata registrations are judged against.
    let attestationAnchors: AttestationTrustAnchors
    /// How long a challenge is accepted.
    let challengeLifetime: TimeInterval
    let abuse: AbuseGuard
    let metrics: ServerMetrics
    let audit: AuditLog
    let now: @Sendable () -> Date
}
