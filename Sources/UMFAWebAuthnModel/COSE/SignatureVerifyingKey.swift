import Crypto
import Foundation
import UMFAWebAuthnTypes
import _CryptoExtras

/// A public key ready to check signatures with one COSE algorithm's rules.
///
/// Built once from a COSE key or a certificate's key, then used for every signature, so the
/// cost of parsing and validating the point or modulus is paid once.
package enum SignatureVerifyingKey: Sendable {
    case p256(P256.Signing.PublicKey, HashFunction)
    case p384(P384.Signing.PublicKey, HashFunction)
    case p521(P521.Signing.PublicKey, HashFunction)
    case ed25519(Curve25519.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey, HashFunction, pss: Bool)

    /// The digest an algorithm signs.
    package enum HashFunction: Sendable {
        case sha256, sha384, sha512
    }

    /// Whether `signature` (DER for ECDSA, raw for EdDSA and RSA) signs `data`.
    package func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch self {
        case .p256(let key, let hash):
            guard
                let parsed = ECDSASignatureDER.raw(signature, size: 32)
                    .flatMap({ try? P256.Signing.ECDSASignature(rawRepresentation: $0) })
                    ?? (try? P256.Signing.ECDSASignature(derRepresentation: signature))
            else { return false }
            return hash.withDigest(of: data) { key.isValidSignature(parsed, for: $0) }
        case .p384(let key, let hash):
            guard
                let parsed = ECDSASignatureDER.raw(signature, size: 48)
                    .flatMap({ try? P384.Signing.ECDSASignature(rawRepresentation: $0) })
                    ?? (try? P384.Signing.ECDSASignature(derRepresentation: signature))
            else { return false }
            return hash.withDigest(of: data) { key.isValidSignature(parsed, for: $0) }
        case .p521(let key, let hash):
            guard let parsed = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return hash.withDigest(of: data) { key.isValidSignature(parsed, for: $0) }
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key, let hash, let pss):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            let padding: _RSA.Signing.Padding = pss ? .PSS : .insecurePKCS1v1_5
            return hash.withDigest(of: data) { key.isValidSignature(parsed, for: $0, padding: padding) }
        }
    }

    /// The digest and padding of an RSA algorithm, or `nil` when it is not a supported RSA one.
    package static func rsaParameters(_ algorithm: COSEAlgorithm) -> (HashFunction, Bool)? {
        switch algorithm {
        case .rs256: return (.sha256, false)
        case .rs384: return (.sha384, false)
        case .rs512: return (.sha512, false)
        case .ps256: return (.sha256, true)
        case .ps384: return (.sha384, true)
        case .ps512: return (.sha512, true)
        default: return nil
        }
    }
}

extension SignatureVerifyingKey.HashFunction {
    package func withDigest<Result>(of data: [UInt8], _ body: (any Digest) -> Result) -> Result {
        switch self {
        case .sha256: return body(SHA256.hash(data: data))
        case .sha384: return body(SHA384.hash(data: data))
        case .sha512: return body(SHA512.hash(data: data))
        }
    }
}
