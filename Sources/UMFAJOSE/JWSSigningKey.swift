import Crypto
import Foundation
import _CryptoExtras

/// A key that makes JWS signatures (RFC 7518 §3, RFC 8037 §3.1), and checks them.
///
/// - ES256: ECDSA P-256 over SHA-256, the signature as `R ‖ S` (64 bytes).
/// - RS256: RSASSA-PKCS1-v1_5 over SHA-256.
/// - EdDSA: Ed25519 over the signing input itself.
/// - HS256, HS384, HS512: HMAC, checked in constant time.
package enum JWSSigningKey: Sendable {
    /// An ES256 key.
    case es256(P256.Signing.PrivateKey)
    /// An RS256 key.
    case rs256(_RSA.Signing.PrivateKey)
    /// An EdDSA (Ed25519) key.
    case edDSA(Curve25519.Signing.PrivateKey)
    /// A shared secret for one of the HMAC algorithms (``JWSAlgorithm/hmac``).
    case hmac(JWSAlgorithm, SymmetricKey)

    /// The algorithm its signatures are of.
    package var algorithm: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .rs256: .rs256
        case .edDSA: .edDSA
        case .hmac(let algorithm, _): algorithm
        }
    }

    /// The JWS signature over `signingInput`.
    package func signature(for signingInput: Data) throws -> Data {
        switch self {
        case .es256(let key):
            try key.signature(for: SHA256.hash(data: signingInput)).rawRepresentation
        case .rs256(let key):
            try key.signature(for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5).rawRepresentation
        case .edDSA(let key):
            try key.signature(for: signingInput)
        case .hmac(.hs384, let key):
            Data(HMAC<SHA384>.authenticationCode(for: signingInput, using: key))
        case .hmac(.hs512, let key):
            Data(HMAC<SHA512>.authenticationCode(for: signingInput, using: key))
        case .hmac(_, let key):
            Data(HMAC<SHA256>.authenticationCode(for: signingInput, using: key))
        }
    }

    /// Whether `signature` is this key's JWS signature over `signingInput`.
    package func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        switch self {
        case .es256(let key):
            // `R ‖ S`, 32 bytes each (RFC 7518 §3.4); a DER signature is not a JWS signature.
            signature.count == 64
                && (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                    key.publicKey.isValidSignature($0, for: SHA256.hash(data: signingInput))
                } == true
        case .rs256(let key):
            key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signingInput),
                padding: .insecurePKCS1v1_5)
        case .edDSA(let key):
            key.publicKey.isValidSignature(signature, for: signingInput)
        case .hmac(.hs384, let key):
            HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        case .hmac(.hs512, let key):
            HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        case .hmac(_, let key):
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        }
    }
}
