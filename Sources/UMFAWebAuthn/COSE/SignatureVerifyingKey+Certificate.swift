import Crypto
import UMFAWebAuthnTypes
import X509
import _CryptoExtras

extension SignatureVerifyingKey {
    /// Builds the verifying key for `algorithm` from a certificate's public key.
    package static func make(algorithm: COSEAlgorithm, certificateKey: Certificate.PublicKey) throws(WebAuthnError)
        -> SignatureVerifyingKey
    {
        let mismatch = WebAuthnError(.invalidAttestation, "certificate key does not fit algorithm \(algorithm)")
        switch algorithm {
        case .es256:
            guard let key = P256.Signing.PublicKey(certificateKey) else { throw mismatch }
            return .p256(key, .sha256)
        case .es384:
            guard let key = P384.Signing.PublicKey(certificateKey) else { throw mismatch }
            return .p384(key, .sha384)
        case .es512:
            guard let key = P521.Signing.PublicKey(certificateKey) else { throw mismatch }
            return .p521(key, .sha512)
        case .edDSA, .ed25519:
            guard let key = Curve25519.Signing.PublicKey(certificateKey) else { throw mismatch }
            return .ed25519(key)
        default:
            guard let (hash, pss) = rsaParameters(algorithm) else {
                throw WebAuthnError(.unsupportedAlgorithm, "algorithm \(algorithm) is not supported")
            }
            guard let key = _RSA.Signing.PublicKey(certificateKey) else { throw mismatch }
            return .rsa(key, hash, pss: pss)
        }
    }
}
