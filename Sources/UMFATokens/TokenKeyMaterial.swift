import Crypto
import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import _CryptoExtras

/// The private and public halves of one token signing key, of one of the three JWS algorithms
/// UMFA signs with, and the JWS signature operations for it.
///
/// - RS256 (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 over SHA-256, RSA-2048.
/// - ES256 (RFC 7518 §3.4): ECDSA P-256 over SHA-256, the signature as `R ‖ S` (64 bytes).
/// - EdDSA (RFC 8037 §3.1): Ed25519 over the signing input itself.
enum TokenKeyMaterial: Sendable {
    case rsa(_RSA.Signing.PrivateKey, _RSA.Signing.PublicKey)
    case p256(P256.Signing.PrivateKey, P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PrivateKey, Curve25519.Signing.PublicKey)

    /// A new key for `algorithm`.
    init(generating algorithm: TokenSigningAlgorithm) throws {
        switch algorithm {
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            self = .rsa(key, key.publicKey)
        case .es256:
            let key = P256.Signing.PrivateKey()
            self = .p256(key, key.publicKey)
        case .edDSA:
            let key = Curve25519.Signing.PrivateKey()
            self = .ed25519(key, key.publicKey)
        }
    }

    /// The key stored as ``privateKeyBytes`` for `algorithm`.
    init(algorithm: TokenSigningAlgorithm, privateKeyBytes bytes: [UInt8]) throws {
        switch algorithm {
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(derRepresentation: bytes)
            self = .rsa(key, key.publicKey)
        case .es256:
            let key = try P256.Signing.PrivateKey(derRepresentation: bytes)
            self = .p256(key, key.publicKey)
        case .edDSA:
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: bytes)
            self = .ed25519(key, key.publicKey)
        }
    }

    var algorithm: TokenSigningAlgorithm {
        switch self {
        case .rsa: .rs256
        case .p256: .es256
        case .ed25519: .edDSA
        }
    }

    /// The private half as stored (sealed): PKCS #1 / SEC 1 DER, or the 32-byte Ed25519 seed.
    var privateKeyBytes: [UInt8] {
        switch self {
        case .rsa(let key, _): [UInt8](key.derRepresentation)
        case .p256(let key, _): [UInt8](key.derRepresentation)
        case .ed25519(let key, _): [UInt8](key.rawRepresentation)
        }
    }

    /// The public half as stored: SubjectPublicKeyInfo DER, or the raw 32 bytes for Ed25519.
    var publicKeyBytes: [UInt8] {
        switch self {
        case .rsa(_, let key): [UInt8](key.derRepresentation)
        case .p256(_, let key): [UInt8](key.derRepresentation)
        case .ed25519(_, let key): [UInt8](key.rawRepresentation)
        }
    }

    /// The JWS signature over `signingInput`.
    func signature(for signingInput: Data) throws -> Data {
        switch self {
        case .rsa(let key, _):
            try key.signature(for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(let key, _):
            try key.signature(for: SHA256.hash(data: signingInput)).rawRepresentation
        case .ed25519(let key, _):
            try key.signature(for: signingInput)
        }
    }

    /// Whether `signature` is this key's JWS signature over `signingInput`.
    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        switch self {
        case .rsa(_, let key):
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signingInput),
                padding: .insecurePKCS1v1_5)
        case .p256(_, let key):
            // `R ‖ S`, 32 bytes each (RFC 7518 §3.4); a DER signature is not a JWS signature.
            signature.count == 64
                && (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                    key.isValidSignature($0, for: SHA256.hash(data: signingInput))
                } == true
        case .ed25519(_, let key):
            key.isValidSignature(signature, for: signingInput)
        }
    }

    /// The public JWK's members (RFC 7517, RFC 7518 §6, RFC 8037 §2), without `kid`, `use`, `alg`.
    static func publicJWK(algorithm: TokenSigningAlgorithm, publicKeyBytes bytes: [UInt8]) throws -> [String: String] {
        switch algorithm {
        case .rs256:
            let primitives = try _RSA.Signing.PublicKey(derRepresentation: bytes).getKeyPrimitives()
            return [
                "kty": "RSA", "n": Base64URL.encode(primitives.modulus),
                "e": Base64URL.encode(primitives.publicExponent),
            ]
        case .es256:
            let raw = try P256.Signing.PublicKey(derRepresentation: bytes).rawRepresentation
            return [
                "kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)),
                "y": Base64URL.encode(raw.suffix(32)),
            ]
        case .edDSA:
            let raw = try Curve25519.Signing.PublicKey(rawRepresentation: bytes).rawRepresentation
            return ["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(raw)]
        }
    }

    /// The RFC 7638 thumbprint of a public JWK (``JWKThumbprint``): its required members only.
    static func thumbprint(of jwk: [String: String]) -> String {
        let required: [String] =
            switch jwk["kty"] {
            case "RSA": ["e", "kty", "n"]
            case "EC": ["crv", "kty", "x", "y"]
            default: ["crv", "kty", "x"]
            }
        return JWKThumbprint.compute(Dictionary(uniqueKeysWithValues: required.map { ($0, jwk[$0] ?? "") }))
    }
}
