import Crypto
import Foundation
import UMFAEncoding
import _CryptoExtras

/// A public JWK (RFC 7517) of one of the algorithms UMFA verifies (RS256, ES256, EdDSA), for a
/// given `alg`: a DPoP proof's `jwk` header, a client's registered key (RFC 7523).
public struct PublicJWK: Sendable {
    /// A key refused; the message names the member or the mismatch.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, such as `jwk has no x`.
        public let message: String
        init(_ message: String) { self.message = message }
        /// The message.
        public var description: String { message }
    }

    /// Its RFC 7638 thumbprint.
    public let thumbprint: String
    private let verify: @Sendable (Data, Data) -> Bool

    /// Members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The key of `jwk` for signatures of `alg`.
    public init(jwk: [String: Any], alg: String) throws(Failure) {
        guard Set(jwk.keys).isDisjoint(with: Self.privateMembers) else {
            throw Failure("jwk must be a public key (it has private members)")
        }
        func member(_ name: String) throws(Failure) -> String {
            guard let value = jwk[name] as? String, !value.isEmpty else {
                throw Failure("jwk has no \(name)")
            }
            return value
        }
        func bytes(_ name: String, count: Int? = nil) throws(Failure) -> [UInt8] {
            guard let decoded = Base64URL.decode(try member(name)), count.map({ decoded.count == $0 }) ?? true else {
                throw Failure("jwk \(name) is not a valid value")
            }
            return decoded
        }
        let kty = try member("kty")
        switch (alg, kty) {
        case ("ES256", "EC"):
            guard try member("crv") == "P-256" else { throw Failure("jwk for ES256 must be on P-256") }
            let (x, y) = (try bytes("x", count: 32), try bytes("y", count: 32))
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw Failure("jwk is not a point on P-256")
            }
            thumbprint = JWKThumbprint.compute([
                "crv": "P-256", "kty": "EC", "x": try member("x"), "y": try member("y"),
            ])
            verify = { signature, input in
                signature.count == 64
                    && (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                        key.isValidSignature($0, for: SHA256.hash(data: input))
                    } == true
            }
        case ("RS256", "RSA"):
            let (n, e) = (try bytes("n"), try bytes("e"))
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else {
                throw Failure("jwk for RS256 must be an RSA key of 2048 bits or more")
            }
            thumbprint = JWKThumbprint.compute(["e": try member("e"), "kty": "RSA", "n": try member("n")])
            verify = { signature, input in
                key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                    padding: .insecurePKCS1v1_5)
            }
        case ("EdDSA", "OKP"):
            guard try member("crv") == "Ed25519" else { throw Failure("jwk for EdDSA must be Ed25519") }
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: try bytes("x", count: 32)) else {
                throw Failure("jwk is not an Ed25519 key")
            }
            thumbprint = JWKThumbprint.compute(["crv": "Ed25519", "kty": "OKP", "x": try member("x")])
            verify = { signature, input in key.isValidSignature(signature, for: input) }
        default:
            throw Failure("jwk kty \(kty) does not fit alg \(alg)")
        }
    }

    /// Whether `signature` is this key's JWS signature over `input`.
    public func isValidSignature(_ signature: Data, for input: Data) -> Bool { verify(signature, input) }
}

/// The JWK thumbprint of RFC 7638: SHA-256 over the key's required members, sorted by name,
/// without white space, base64url.
public enum JWKThumbprint {
    /// The thumbprint of a key given by its required members (string values, no escaping needed:
    /// member names are fixed and values base64url or curve names).
    public static func compute(_ required: [String: String]) -> String {
        let members = required.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }
        return Base64URL.encode(Data(SHA256.hash(data: Data("{\(members.joined(separator: ","))}".utf8))))
    }
}
