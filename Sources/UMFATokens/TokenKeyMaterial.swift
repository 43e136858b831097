import Crypto
import Foundation
import UMFAJOSE
import _CryptoExtras

/// The private and public halves of one token signing key, of one of the three JWS algorithms
/// UMFA signs with, and the JWS signature operations for it.
///
/// - RS256 (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 over SHA-256, RSA-2048.
/// - ES256 (RFC 7518 §3.4): ECDSA P-256 over SHA-256, the signature as `R ‖ S` (64 bytes).
/// - EdDSA (RFC 8037 §3.1): Ed25519 over the signing input itself.
enum TokenKeyMaterial: Sendable {
    case rsa(RS256Signer, _RSA.Signing.PublicKey)
    case p256(P256.Signing.PrivateKey, P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PrivateKey, Curve25519.Signing.PublicKey)

    /// A new key for `algorithm`.
    init(generating algorithm: TokenSigningAlgorithm) throws {
        switch algorithm {
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            self = .rsa(RS256Signer(key), key.publicKey)
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
            self = .rsa(RS256Signer(key), key.publicKey)
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
        case .rsa(let signer, _): [UInt8](signer.key.derRepresentation)
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

    /// The JWS signature over `signingInput`; RS256 through ``RS256Signer``, which may be the
    /// system libcrypto's.
    func signature(for signingInput: Data) throws -> Data {
        switch self {
        case .rsa(let signer, _): try signer.signature(for: signingInput)
        default: try signingKey.signature(for: signingInput)
        }
    }

    /// The private half as a JWS signing key, which checks the signatures (and signs, through
    /// swift-crypto alone).
    var signingKey: JWSSigningKey {
        switch self {
        case .rsa(let signer, _): .rs256(signer.key)
        case .p256(let key, _): .es256(key)
        case .ed25519(let key, _): .edDSA(key)
        }
    }

    /// The public JWK (RFC 7517, RFC 7518 §6, RFC 8037 §2), without `kid`, `use`, `alg`.
    static func publicJWK(algorithm: TokenSigningAlgorithm, publicKeyBytes bytes: [UInt8]) throws -> JWK {
        switch algorithm {
        case .rs256: try JWK(_RSA.Signing.PublicKey(derRepresentation: bytes))
        case .es256: JWK(try P256.Signing.PublicKey(derRepresentation: bytes))
        case .edDSA: JWK(try Curve25519.Signing.PublicKey(rawRepresentation: bytes))
        }
    }
}
