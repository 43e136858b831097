import Crypto
import Foundation
import SwiftASN1
import UMFACBOR
import X509

/// The `apple` anonymous attestation statement format (WebAuthn L3 §8.8), produced by Apple
/// devices; the certificate is issued per credential by Apple's anonymisation CA.
public struct AppleAttestation: AttestationFormatVerifier {
    /// `apple`.
    public let format = "apple"
    /// The nonce extension's OID.
    static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]

    /// Creates the verifier.
    public init() {}

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "apple: \(reason)", step: AttestationStatementFields.step)
    }

    /// Checks the statement as §8.8's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        // Step 1: the statement is well formed; extract x5c.
        guard let certificates = try AttestationStatementFields.certificates(statement, format: format) else {
            throw Self.refuse("x5c is missing")
        }
        guard let credential = authenticatorData.attestedCredentialData else {
            throw Self.refuse("no attested credential data")
        }
        let credCert = certificates[0]
        // Step 2: nonce = SHA-256(authenticatorData ‖ clientDataHash).
        let nonce = Array(SHA256.hash(data: authenticatorData.rawBytes + clientDataHash))
        // Step 3: credCert's nonce extension holds that nonce.
        guard let ext = credCert.extensions[oid: Self.nonceExtension] else {
            throw Self.refuse("the certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        guard try Self.nonce(in: ext.value) == nonce else {
            throw Self.refuse("the certificate's nonce is not SHA-256 of authenticatorData and clientDataHash")
        }
        // Step 4: credCert certifies the credential public key.
        guard AttestationSignature.certificateHoldsCredentialKey(credCert, credential.publicKey) else {
            throw Self.refuse("the certificate's public key is not the credential public key")
        }
        // Step 5: attestation type Anonymization CA with the x5c trust path.
        return VerifiedAttestationStatement(type: .anonCA, trustPath: certificates)
    }

    /// The nonce in the extension value `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func nonce(in value: ArraySlice<UInt8>) throws(WebAuthnError) -> [UInt8] {
        do {
            let root = try DER.parse(value)
            guard case .constructed(let children) = root.content,
                let tagged = children.first(where: {
                    $0.identifier.tagClass == .contextSpecific && $0.identifier.tagNumber == 1
                }),
                case .constructed(let inner) = tagged.content, let octets = inner.first(where: { _ in true })
            else {
                throw refuse("the nonce extension is not SEQUENCE { [1] OCTET STRING }")
            }
            return Array(try ASN1OctetString(derEncoded: octets).bytes)
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw refuse("the nonce extension is malformed")
        }
    }
}
