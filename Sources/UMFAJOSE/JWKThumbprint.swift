import Crypto
import Foundation
import UMFAEncoding

/// The JWK thumbprint of RFC 7638: SHA-256 over the key's required members, sorted by name,
/// without white space, base64url.
package enum JWKThumbprint {
    /// The thumbprint of a key given by its required members (string values, no escaping needed:
    /// member names are fixed and values base64url or curve names).
    package static func compute(_ required: [String: String]) -> String {
        let members = required.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }
        return Base64URL.encode(Data(SHA256.hash(data: Data("{\(members.joined(separator: ","))}".utf8))))
    }

    /// The thumbprint of `jwk`, from the members its `kty` requires (RFC 7638 §3.2): `e`, `kty`,
    /// `n` of RSA; `crv`, `kty`, `x`, `y` of EC; `crv`, `kty`, `x` of OKP.
    package static func compute(_ jwk: JWK) -> String {
        let required: [(String, String?)] =
            switch jwk.kty {
            case "RSA": [("e", jwk.e), ("kty", jwk.kty), ("n", jwk.n)]
            case "EC": [("crv", jwk.crv), ("kty", jwk.kty), ("x", jwk.x), ("y", jwk.y)]
            default: [("crv", jwk.crv), ("kty", jwk.kty), ("x", jwk.x)]
            }
        return compute(Dictionary(uniqueKeysWithValues: required.map { ($0.0, $0.1 ?? "") }))
    }
}
