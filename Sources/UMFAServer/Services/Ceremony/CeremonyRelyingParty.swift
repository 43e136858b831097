import Foundation
import UMFAStorage
import UMFAWebAuthn

/// A WebAuthn relying party as ``CeremonyEngine`` sees it: the scope its challenges are stored
/// under and the policies its responses are verified under. Each application is one; the admin
/// console is another (``ConsoleRelyingParty``).
struct CeremonyRelyingParty: Sendable {
    /// The challenges' application id: the application's, or the console's nil UUID.
    let challengeScope: UUID
    /// What assertions are verified under: RP ID, origins, user verification.
    let policy: RelyingPartyPolicy
    /// What registrations are verified under: ``policy`` with the attestation acceptance and
    /// the algorithms offered.
    let registrationPolicy: RelyingPartyPolicy
}

extension ApplicationRecord {
    /// The application as a relying party; registrations are judged against `anchors` and
    /// accept only the algorithms registration offers.
    func ceremonyParty(anchors: AttestationTrustAnchors) -> CeremonyRelyingParty {
        var registration = registrationPolicy(anchors: anchors)
        registration.algorithms = RegistrationService.offeredAlgorithms
        return CeremonyRelyingParty(challengeScope: id, policy: relyingPartyPolicy, registrationPolicy: registration)
    }
}

extension CeremonyEngine where Credentials == ApplicationCredentials {
    /// The engine of an application's users.
    init(application: ApplicationRecord, ceremonies: Ceremonies) {
        self.init(
            relyingParty: application.ceremonyParty(anchors: ceremonies.attestationAnchors),
            credentials: ApplicationCredentials(store: ceremonies.store, applicationID: application.id),
            challenges: ceremonies.store, now: ceremonies.now)
    }
}
