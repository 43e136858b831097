import Foundation
import UMFAStorage
import UMFAWebAuthn

/// The admin console as a WebAuthn relying party (DESIGN.md §8): its passkeys belong to the
/// server's public URL, RP ID its host, the one origin the URL's. Challenges live with the
/// applications' in the challenges table, under an application id no application can have.
struct ConsoleRelyingParty: Sendable {
    let services: ServerServices

    /// The challenges' application id: the nil UUID (applications get random version 4 ids).
    static let challengeScope = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The public URL's host. Browsers refuse an IP address as RP ID, so a loopback address is
    /// served as `localhost` (open the console at `http://localhost:<port>/admin`).
    var rpID: String {
        let host = URLComponents(string: services.publicURL)?.host ?? "localhost"
        return ["127.0.0.1", "::1", "[::1]"].contains(host) ? "localhost" : host
    }

    /// The public URL's origin (`scheme://host[:port]`), with the host as ``rpID`` names it.
    var origin: String {
        guard let url = URLComponents(string: services.publicURL), let scheme = url.scheme else {
            return services.publicURL
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
        try await services.store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: Self.challengeScope, userID: userHandle.map(Base64URL.encode),
                ceremony: ceremony,
                userVerification: .required, expiresAt: services.now().addingTimeInterval(services.challengeLifetime)))
        return challenge
    }

    /// Consumes the challenge a response's client data names; 401 when unknown or used.
    func consumeChallenge(_ clientDataJSON: Base64URLBytes, ceremony: CeremonyKind) async throws
        -> ([UInt8], ChallengeRecord)
    {
        let scope = ApplicationRecord(
            id: Self.challengeScope, name: "console", rpID: rpID, rpName: "UMFA console", origins: [origin],
            enrollmentPolicy: .grant, userVerification: .required, attestation: .none, tokenTTLSeconds: 60,
            createdAt: Date(timeIntervalSince1970: 0))
        return try await ChallengeLookup(services: services, application: scope)
            .consume(for: clientDataJSON, ceremony: ceremony)
    }
}
