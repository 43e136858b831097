import Crypto
import Foundation
import UMFACBOR
import X509

/// The `tpm` attestation statement format (WebAuthn L3 §8.3), used by Windows Hello and other
/// authenticators whose keys live in a TPM 2.0.
public struct TPMAttestation: AttestationFormatVerifier {
    /// `tpm`.
    public let format = "tpm"
    /// Whether the AIK certificate must name a TPM vendor in the TCG registry (its
    /// `tpmManufacturer`); on by default. The specification's own test vectors use the
    /// unregistered `id:00000000`.
    public var requireRegisteredManufacturer: Bool

    /// Creates the verifier.
    public init(requireRegisteredManufacturer: Bool = true) {
        self.requireRegisteredManufacturer = requireRegisteredManufacturer
    }

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "tpm: \(reason)", step: AttestationStatementFields.step)
    }

    /// Checks the statement as §8.3's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        // Step 1: the statement is well formed; extract its fields.
        guard statement["ver"]?.stringValue == "2.0" else { throw Self.refuse("ver must be \"2.0\"") }
        let alg = try AttestationStatementFields.algorithm(statement, format: format)
        let signature = try AttestationStatementFields.signature(statement, format: format)
        guard let certInfoBytes = statement["certInfo"]?.bytesValue else {
            throw Self.refuse("certInfo must be a byte string")
        }
        guard let pubAreaBytes = statement["pubArea"]?.bytesValue else {
            throw Self.refuse("pubArea must be a byte string")
        }
        guard let credential = authenticatorData.attestedCredentialData else {
            throw Self.refuse("no attested credential data")
        }
        // Step 2: pubArea's parameters and unique describe the credential public key.
        let pubArea = try TPMPublicArea(pubAreaBytes)
        try Self.checkSameKey(pubArea, credential.publicKey)
        // Step 3: attToBeSigned.
        let attToBeSigned = authenticatorData.rawBytes + clientDataHash
        // Step 4: certInfo is a TPM-generated certification of exactly that key and data.
        let certInfo = try TPMSAttest(certInfoBytes)
        guard certInfo.magic == TPMSAttest.generatedValue else {
            throw Self.refuse("certInfo magic is not TPM_GENERATED_VALUE")
        }
        guard certInfo.type == TPMSAttest.attestCertify else {
            throw Self.refuse("certInfo type is not TPM_ST_ATTEST_CERTIFY")
        }
        guard let expectedExtraData = AttestationSignature.digest(attToBeSigned, algorithm: alg) else {
            throw Self.refuse("alg \(alg) names no hash algorithm")
        }
        guard certInfo.extraData == expectedExtraData else {
            throw Self.refuse("certInfo extraData is not the hash of authenticatorData and clientDataHash")
        }
        guard certInfo.name == (try Self.name(of: pubArea)) else {
            throw Self.refuse("certInfo attested name is not the Name of pubArea")
        }
        // Step 5: x5c is present (ECDAA is gone from Level 3).
        guard let certificates = try AttestationStatementFields.certificates(statement, format: format) else {
            throw Self.refuse("x5c is missing")
        }
        let aikCertificate = certificates[0]
        // Step 6: sig is the AIK's signature over certInfo.
        guard
            try AttestationSignature.isValid(
                signature, for: certInfoBytes, certificate: aikCertificate, algorithm: alg, format: format,
                allowRS1: true)
        else {
            throw Self.refuse("sig is not the AIK certificate key's signature over certInfo")
        }
        // Step 7: the AIK certificate meets §8.3.1; step 8: its AAGUID, if any, matches.
        let certified = try TPMCertificateRequirements.check(
            aikCertificate, aaguid: credential.aaguid, requireRegisteredManufacturer: requireRegisteredManufacturer)
        // Step 9: attestation type AttCA with the x5c trust path; a stated AAGUID is certified.
        return VerifiedAttestationStatement(
            type: .attCA, trustPath: certificates, aaguid: certified.map(StatementAAGUID.certified) ?? .claimed)
    }

    /// The Name of `pubArea`: nameAlg followed by nameAlg's hash of the structure.
    static func name(of pubArea: TPMPublicArea) throws(WebAuthnError) -> [UInt8] {
        let prefix = [UInt8(pubArea.nameAlg >> 8), UInt8(pubArea.nameAlg & 0xff)]
        switch pubArea.nameAlg {
        case TPMPublicArea.Algorithm.sha1: return prefix + Insecure.SHA1.hash(data: pubArea.bytes)
        case TPMPublicArea.Algorithm.sha256: return prefix + SHA256.hash(data: pubArea.bytes)
        case TPMPublicArea.Algorithm.sha384: return prefix + SHA384.hash(data: pubArea.bytes)
        case TPMPublicArea.Algorithm.sha512: return prefix + SHA512.hash(data: pubArea.bytes)
        default: throw refuse("pubArea nameAlg \(pubArea.nameAlg) is not a supported hash")
        }
    }

    /// Step 2: the pubArea key equals the COSE credential key.
    static func checkSameKey(_ pubArea: TPMPublicArea, _ key: COSEKey) throws(WebAuthnError) {
        guard let map = try? CBORDecoder().decode(key.encoded).mapValue else {
            throw refuse("the credential public key cannot be read")
        }
        switch pubArea.key {
        case .rsa(let modulus, let exponent):
            let expectedExponent = exponent == 0 ? 65537 : exponent
            guard key.keyType == .rsa, let n = map[-1]?.bytesValue, let e = map[-2]?.bytesValue else {
                throw refuse("pubArea holds an RSA key but the credential key is not RSA")
            }
            let coseExponent = e.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
            guard e.count <= 8, n == modulus, coseExponent == UInt64(expectedExponent) else {
                throw refuse("pubArea RSA key differs from the credential public key")
            }
        case .ecc(let curve, let x, let y):
            let curves: [Int64: UInt16] = [1: 0x0003, 2: 0x0004, 3: 0x0005]
            guard key.keyType == .ec2, let coseCurve = map[-1]?.int64Value else {
                throw refuse("pubArea holds an ECC key but the credential key is not EC2")
            }
            guard curves[coseCurve] == curve, map[-2]?.bytesValue == x, map[-3]?.bytesValue == y else {
                throw refuse("pubArea ECC key differs from the credential public key")
            }
        }
    }
}
