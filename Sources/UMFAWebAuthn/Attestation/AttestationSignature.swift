import Crypto
import SwiftASN1
import UMFAWebAuthnTypes
import X509
import _CryptoExtras

/// Signature checks by an attestation certificate's key, shared by the formats that carry
/// `alg` and `x5c` (packed, tpm, android-key).
enum AttestationSignature {
    /// Whether `signature` by `certificate`'s key under `algorithm` signs `data`.
    ///
    /// RS1 (RSASSA-PKCS1-v1_5 with SHA-1), which Windows TPMs use for attestation, is accepted
    /// only when `allowRS1` says so (the `tpm` format); credential keys never get it.
    static func isValid(
        _ signature: [UInt8], for data: [UInt8], certificate: Certificate, algorithm: COSEAlgorithm, format: String,
        allowRS1: Bool = false
    ) throws(WebAuthnError) -> Bool {
        if algorithm == .rs1 {
            guard allowRS1 else {
                throw WebAuthnError(
                    .invalidAttestation, "\(format) attestation may not use RS1 (SHA-1)",
                    step: AttestationStatementFields.step)
            }
            guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
                throw WebAuthnError(
                    .invalidAttestation, "\(format) certificate key does not fit RS1",
                    step: AttestationStatementFields.step)
            }
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(parsed, for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
        }
        let key: SignatureVerifyingKey
        do {
            key = try SignatureVerifyingKey.make(algorithm: algorithm, certificateKey: certificate.publicKey)
        } catch {
            throw error.inStep(AttestationStatementFields.step)
        }
        return key.isValidSignature(signature, for: data)
    }

    /// The digest `algorithm` signs, over `data`, or `nil` when the algorithm names no hash.
    static func digest(_ data: [UInt8], algorithm: COSEAlgorithm) -> [UInt8]? {
        switch algorithm {
        case .rs1: return Array(Insecure.SHA1.hash(data: data))
        case .es256, .rs256, .ps256: return Array(SHA256.hash(data: data))
        case .es384, .rs384, .ps384: return Array(SHA384.hash(data: data))
        case .es512, .rs512, .ps512: return Array(SHA512.hash(data: data))
        default: return nil
        }
    }

    /// Whether `certificate` holds the same public key as the credential (android-key, apple).
    static func certificateHoldsCredentialKey(_ certificate: Certificate, _ key: COSEKey) -> Bool {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate.publicKey)) != nil else { return false }
        return serializer.serializedBytes == key.subjectPublicKeyInfo
    }
}
