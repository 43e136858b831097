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
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array((sector + "\u{0}" + userID).utf8), using: SymmetricKey(data: key))
        return Base64URL.encode(Array(mac))
    }
}
