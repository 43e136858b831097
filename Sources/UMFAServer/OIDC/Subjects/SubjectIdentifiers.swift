import Crypto
import Foundation
import UMFAEncoding
import UMFAStorage

/// The `sub` a client sees of a user (OpenID Connect Core §8): the user id for a client with
/// public subjects, and for a `pairwise` client a value of its sector alone, so that two clients
/// of different sectors cannot tell they see the same person, while every client of one sector
/// sees the same `sub` (docs/oidc-provider.md, "Pairwise subjects").
///
/// A pairwise `sub` is HMAC-SHA-256 over the sector and the user id, keyed per application with
/// the server secret (§8.1's construction with a secret salt): the same on every instance and
/// across restarts, and no one without the secret can compute it from a user id.
struct SubjectIdentifiers: Sendable {
    /// The key of the application's pairwise subjects.
    private let key: [UInt8]

    init(serverSecret: [UInt8], applicationID: UUID) {
        key = Secrets.derive("umfa-pairwise-subject:" + applicationID.uuidString.lowercased(), key: serverSecret)
    }

    /// The `sub` of `userID` for `client`.
    func subject(of userID: String, for client: OAuthClientRecord) -> String {
        guard let sector = client.sector else { return userID }
        return mac(sector + "\u{0}" + userID)
    }

    /// The `sid` of the SSO session `sessionID` for `client`: the session's own, or for a
    /// pairwise client one of its sector alone. Every client of a session shares its `sid`, so a
    /// shared one would let two sectors match their users by it.
    func session(_ sessionID: String, for client: OAuthClientRecord) -> String {
        guard let sector = client.sector else { return sessionID }
        return mac("sid\u{0}" + sector + "\u{0}" + sessionID)
    }

    private func mac(_ text: String) -> String {
        Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key))))
    }
}
