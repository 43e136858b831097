import Crypto
import Foundation
import Tracing
import UMFAJOSE
import _CryptoExtras

/// The private and public halves of one token signing key, of one of the three JWS algorithms
/// UMFA signs with, and the JWS signature operations for it.
///
/// - RS256 (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 over SHA-256, RSA-2048.
/// - ES256 (RFC 7518 §3.4): ECDSA P-256 over SHA-256, the signature as `R ‖ S` (64 bytes).
/// - EdDSA (RFC 8037 §3.1): Ed25519 over the signing input itself.
///
/// An ES256 or RS256 key may also live in a PKCS #11 token (``HSMKey``): UMFA then holds its
/// URI and public key only, and the token signs.
enum TokenKeyMaterial: Sendable {
    case rsa(RS256Signer, _RSA.Signing.PublicKey)
    case p256(P256.Signing.PrivateKey, P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PrivateKey, Curve25519.Signing.PublicKey)
    case hsm(HSMKey)

    /// A key in a PKCS #11 token: where it is, and its public half for checking signatures.
    struct HSMKey: Sendable {
        let uri: PKCS11URI
        let algorithm: TokenSigningAlgorithm
        /// The tokens it signs through; `nil` on an instance without a module, which can then
        /// check the key's signatures but not make any.
        let keys: PKCS11Keys?
        let publicKeyBytes: [UInt8]
        let verifier: PublicJWK

        /// Signs a fixed input with the token and checks it with the stored public key: the
        /// private key the URI finds is the pair of the public key UMFA publishes.
        func checkPair() throws {
            let input = Data("UMFA signing key check".utf8)
            guard let keys else {
                throw PKCS11Failure(
                    "a signing key is in a PKCS #11 token (\(uri)): set UMFA_PKCS11_MODULE and UMFA_PKCS11_PIN_FILE")
            }
            let signature = try keys.signature(for: input, key: uri, algorithm: algorithm)
            guard verifier.isValidSignature(signature, for: input) else {
                throw PKCS11Failure("the private key \(uri) finds is not the pair of the public key stored for it")
            }
        }
    }

    /// What a stored (sealed) private half holds for a key in a token: its URI, which no DER
    /// key or Ed25519 seed is taken for (DER starts with 0x30; an EdDSA key is never in a token).
    static func isHSMReference(_ bytes: [UInt8], algorithm: TokenSigningAlgorithm) -> Bool {
        algorithm != .edDSA && bytes.starts(with: Array("pkcs11:".utf8))
    }

    /// The key of `algorithm` in a token, named by `uri`, whose public half is `publicKeyBytes`.
    init(hsm uri: PKCS11URI, algorithm: TokenSigningAlgorithm, keys: PKCS11Keys?, publicKeyBytes: [UInt8]) throws {
        let jwk = try Self.publicJWK(algorithm: algorithm, publicKeyBytes: publicKeyBytes)
        self = .hsm(
            HSMKey(
                uri: uri, algorithm: algorithm, keys: keys, publicKeyBytes: publicKeyBytes,
                verifier: try PublicJWK(jwk: jwk, alg: algorithm.jws.rawValue)))
    }

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
        case .hsm(let key): key.algorithm
        }
    }

    /// The private half as stored (sealed): PKCS #1 / SEC 1 DER, or the 32-byte Ed25519 seed;
    /// for a key in a token, its PKCS #11 URI.
    var privateKeyBytes: [UInt8] {
        switch self {
        case .rsa(let signer, _): [UInt8](signer.key.derRepresentation)
        case .p256(let key, _): [UInt8](key.derRepresentation)
        case .ed25519(let key, _): [UInt8](key.rawRepresentation)
        case .hsm(let key): Array(key.uri.description.utf8)
        }
    }

    /// The public half as stored: SubjectPublicKeyInfo DER, or the raw 32 bytes for Ed25519.
    var publicKeyBytes: [UInt8] {
        switch self {
        case .rsa(_, let key): [UInt8](key.derRepresentation)
        case .p256(_, let key): [UInt8](key.derRepresentation)
        case .ed25519(_, let key): [UInt8](key.rawRepresentation)
        case .hsm(let key): key.publicKeyBytes
        }
    }

    /// The JWS signature over `signingInput`; RS256 through ``RS256Signer``, which may be the
    /// system libcrypto's; a key in a token through the token. A span of its own when the server
    /// traces (docs/operators/tracing.md), with the algorithm and whether an HSM signed.
    func signature(for signingInput: Data) throws -> Data {
        try QuietSpan.run("JWS sign") { span in
            span.attributes["umfa.jws.alg"] = algorithm.rawValue
            if case .hsm = self { span.attributes["umfa.jws.key_store"] = "pkcs11" }
            return try unspannedSignature(for: signingInput)
        }
    }

    private func unspannedSignature(for signingInput: Data) throws -> Data {
        switch self {
        case .rsa(let signer, _): return try signer.signature(for: signingInput)
        case .p256(let key, _): return try JWSSigningKey.es256(key).signature(for: signingInput)
        case .ed25519(let key, _): return try JWSSigningKey.edDSA(key).signature(for: signingInput)
        case .hsm(let key):
            guard let keys = key.keys else {
                throw PKCS11Failure(
                    "the signing key \(key.uri) is in a PKCS #11 token and this instance has no module (UMFA_PKCS11_MODULE)"
                )
            }
            return try keys.signature(for: signingInput, key: key.uri, algorithm: key.algorithm)
        }
    }

    /// Whether `signature` is this key's JWS signature over `signingInput`.
    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        switch self {
        case .rsa(let signer, _): JWSSigningKey.rs256(signer.key).isValidSignature(signature, for: signingInput)
        case .p256(let key, _): JWSSigningKey.es256(key).isValidSignature(signature, for: signingInput)
        case .ed25519(let key, _): JWSSigningKey.edDSA(key).isValidSignature(signature, for: signingInput)
        case .hsm(let key): key.verifier.isValidSignature(signature, for: signingInput)
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
