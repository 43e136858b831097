import Crypto
import Foundation
import UMFAEncoding
import _CryptoExtras

/// A public JWK (RFC 7517) of one of the algorithms UMFA verifies (RS256, ES256, EdDSA), for a
/// given `alg`: a DPoP proof's `jwk` header, a client's registered key (RFC 7523), an issuer's
/// key, a device key.
package struct PublicJWK: Sendable {
    /// Its RFC 7638 thumbprint.
    package let thumbprint: String
    private let verify: @Sendable (Data, Data) -> Bool

    /// Members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The key of `jwk` for signatures of `alg`.
    package init(jwk: JWK, alg: String) throws(JOSEError) {
        guard jwk.members.isDisjoint(with: Self.privateMembers) else {
            throw JOSEError(.privateKey, "jwk must be a public key (it has private members)")
        }
        func member(_ name: String, _ value: String?) throws(JOSEError) -> String {
            guard let value, !value.isEmpty else { throw JOSEError(.missingMember, "jwk has no \(name)") }
            return value
        }
        func bytes(_ name: String, _ value: String?, count: Int? = nil) throws(JOSEError) -> [UInt8] {
            guard let decoded = Base64URL.decode(try member(name, value)),
                count.map({ decoded.count == $0 }) ?? true
            else { throw JOSEError(.invalidMember, "jwk \(name) is not a valid value") }
            return decoded
        }
        let kty = try member("kty", jwk.kty)
        switch (alg, kty) {
        case ("ES256", "EC"):
            guard try member("crv", jwk.crv) == "P-256" else {
                throw JOSEError(.unsupportedKey, "jwk for ES256 must be on P-256")
            }
            let (x, y) = (try bytes("x", jwk.x, count: 32), try bytes("y", jwk.y, count: 32))
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw JOSEError(.invalidMember, "jwk is not a point on P-256")
            }
            thumbprint = JWKThumbprint.compute([
                "crv": "P-256", "kty": "EC", "x": try member("x", jwk.x), "y": try member("y", jwk.y),
            ])
            verify = { signature, input in
                signature.count == 64
                    && (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                        key.isValidSignature($0, for: SHA256.hash(data: input))
                    } == true
            }
        case ("RS256", "RSA"):
            let (n, e) = (try bytes("n", jwk.n), try bytes("e", jwk.e))
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else {
                throw JOSEError(.unsupportedKey, "jwk for RS256 must be an RSA key of 2048 bits or more")
            }
            thumbprint = JWKThumbprint.compute([
                "e": try member("e", jwk.e), "kty": "RSA", "n": try member("n", jwk.n),
            ])
            verify = { signature, input in
                key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                    padding: .insecurePKCS1v1_5)
            }
        case ("EdDSA", "OKP"):
            guard try member("crv", jwk.crv) == "Ed25519" else {
                throw JOSEError(.unsupportedKey, "jwk for EdDSA must be Ed25519")
            }
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: try bytes("x", jwk.x, count: 32))
            else { throw JOSEError(.invalidMember, "jwk is not an Ed25519 key") }
            thumbprint = JWKThumbprint.compute(["crv": "Ed25519", "kty": "OKP", "x": try member("x", jwk.x)])
            verify = { signature, input in key.isValidSignature(signature, for: input) }
        default:
            throw JOSEError(.unsupportedKey, "jwk kty \(kty) does not fit alg \(alg)")
        }
    }

    /// Whether `signature` is this key's JWS signature over `input`.
    package func isValidSignature(_ signature: Data, for input: Data) -> Bool { verify(signature, input) }
}
