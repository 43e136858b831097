import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The admin console as a WebAuthn relying party (docs/contract.md §8): its passkeys belong to the
/// server's public URL, RP ID its host, the one origin the URL's. Challenges live with the
/// applications' in the challenges table, under an application id no application can have, and
/// its ceremonies run on the applications' engine (``engine``).
struct ConsoleRelyingParty: Sendable {
    let store: any ConsoleStore & CeremonyStore
    /// The server's public URL: the console's RP ID and origin.
    let publicURL: String
    /// How long a challenge is accepted.
    let challengeLifetime: TimeInterval
    let now: @Sendable () -> Date

    /// The challenges' application id: the nil UUID (applications get random version 4 ids).
    static let challengeScope = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The public URL's host. Browsers refuse an IP address as RP ID, so a loopback address is
    /// served as `localhost` (open the console at `http://localhost:<port>/admin`).
    var rpID: String {
        let host = URLComponents(string: publicURL)?.host ?? "localhost"
        return ["127.0.0.1", "::1", "[::1]"].contains(host) ? "localhost" : host
    }

    /// The public URL's origin (`scheme://host[:port]`), with the host as ``rpID`` names it.
    var origin: String {
        guard let url = URLComponents(string: publicURL), let scheme = url.scheme else {
            return publicURL
        }
        let host = rpID.contains(":") ? "[\(rpID)]" : rpID
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// User verification is required: an operator's passkey stands for the admin token.
    var policy: RelyingPartyPolicy {
        RelyingPartyPolicy(rpID: rpID, origins: OriginPolicy(allowed: [origin]), userVerification: .required)
    }

    /// Stores a challenge of `ceremony` (for a registration, with the new user handle in its
    /// user id, base64url) and returns it.
    func newChallenge(_ ceremony: CeremonyKind, userHandle: [UInt8]? = nil) async throws -> [UInt8] {
        let challenge = Secrets.randomBytes(32)
        try await store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: Self.challengeScope, userID: userHandle.map(Base64URL.encode),
                ceremony: ceremony,
                userVerification: .required, expiresAt: now().addingTimeInterval(challengeLifetime)))
        return challenge
    }

    /// The console as the ceremony engine's relying party: registrations are judged under
    /// ``policy`` too (operator passkeys are not attested).
    var party: CeremonyRelyingParty {
        CeremonyRelyingParty(challengeScope: Self.challengeScope, policy: policy, registrationPolicy: policy)
    }

    /// The one ceremony engine (``CeremonyEngine``), over the operator passkeys.
    var engine: CeremonyEngine<ConsoleCredentials> {
        CeremonyEngine(
            relyingParty: party, credentials: ConsoleCredentials(store: store), challenges: store,
            now: now)
    }
}
