import Crypto
import Foundation
import UMFAEncoding
import _CryptoExtras

/// A JSON Web Key (RFC 7517 §4) as a JWS header or a JWK Set carries it: the members UMFA reads
/// (RFC 7518 §6.2.1 and §6.3.1, RFC 8037 §2), and the names of every member it was read with, so
/// that a key with private members is told apart (``PublicJWK``). A member of another type than
/// a string reads as absent.
package struct JWK: Codable, Sendable, Hashable {
    /// The key type: `EC`, `RSA` or `OKP`.
    package var kty: String?
    /// The curve of an `EC` or `OKP` key.
    package var crv: String?
    /// The x coordinate (EC) or the public key (OKP), base64url.
    package var x: String?
    /// The y coordinate of an EC key, base64url.
    package var y: String?
    /// An RSA key's modulus, base64url.
    package var n: String?
    /// An RSA key's public exponent, base64url.
    package var e: String?
    /// The key id.
    package var kid: String?
    /// The algorithm the key is meant for.
    package var alg: String?
    /// `sig` or `enc`.
    package var use: String?
    /// The names of the members it was read with, known or not; for a key made here, those set.
    package let members: Set<String>

    private static let known = ["kty", "crv", "x", "y", "n", "e", "kid", "alg", "use"]

    /// A key of the given members.
    package init(
        kty: String?, crv: String? = nil, x: String? = nil, y: String? = nil, n: String? = nil, e: String? = nil,
        kid: String? = nil, alg: String? = nil, use: String? = nil
    ) {
        (self.kty, self.crv, self.x, self.y, self.n, self.e) = (kty, crv, x, y, n, e)
        (self.kid, self.alg, self.use) = (kid, alg, use)
        let values = [kty, crv, x, y, n, e, kid, alg, use]
        members = Set(zip(Self.known, values).compactMap { $0.1 == nil ? nil : $0.0 })
    }

    /// The public JWK of a P-256 key.
    package init(_ key: P256.Signing.PublicKey) {
        let raw = Array(key.rawRepresentation)
        self.init(
            kty: "EC", crv: "P-256", x: Base64URL.encode(Array(raw[..<32])), y: Base64URL.encode(Array(raw[32...])))
    }

    /// The public JWK of an RSA key.
    package init(_ key: _RSA.Signing.PublicKey) throws {
        let primitives = try key.getKeyPrimitives()
        self.init(kty: "RSA", n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent))
    }

    /// The public JWK of an Ed25519 key.
    package init(_ key: Curve25519.Signing.PublicKey) {
        self.init(kty: "OKP", crv: "Ed25519", x: Base64URL.encode(key.rawRepresentation))
    }

    /// Reads a JSON object; string members of another type read as absent.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MemberKey.self)
        kty = container.lenient("kty")
        crv = container.lenient("crv")
        x = container.lenient("x")
        y = container.lenient("y")
        n = container.lenient("n")
        e = container.lenient("e")
        kid = container.lenient("kid")
        alg = container.lenient("alg")
        use = container.lenient("use")
        members = container.memberNames
    }

    /// Writes the members that are set.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (name, value) in zip(Self.known, [kty, crv, x, y, n, e, kid, alg, use]) {
            try container.encode(value, as: name)
        }
    }
}

/// A JWK Set (RFC 7517 §5).
package struct JWKSet: Codable, Sendable, Hashable {
    /// Its keys.
    package var keys: [JWK]

    /// A set of `keys`.
    package init(keys: [JWK]) { self.keys = keys }

    /// The keys of a JWK Set's JSON; none when it is not one (or a key is not an object).
    package static func keys(in json: some Sequence<UInt8>) -> [JWK] {
        (try? JSONDecoder().decode(JWKSet.self, from: Data(json)))?.keys ?? []
    }
}
