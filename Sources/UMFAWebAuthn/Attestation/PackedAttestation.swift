import Foundation
import UMFACBOR
import X509

/// The `packed` attestation statement format (WebAuthn L3 §8.2), with an attestation
/// certificate chain (`x5c`) or as self attestation.
public struct PackedAttestation: AttestationFormatVerifier {
    /// `packed`.
    public let format = "packed"

    /// Creates the verifier.
    public init() {}

    /// Checks the statement as §8.2's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        let step = AttestationStatementFields.step
        guard let credential = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.invalidAttestation, "packed: no attested credential data", step: step)
        }
        let alg = try AttestationStatementFields.algorithm(statement, format: format)
        let signature = try AttestationStatementFields.signature(statement, format: format)
        let signedData = authenticatorData.rawBytes + clientDataHash

        guard let certificates = try AttestationStatementFields.certificates(statement, format: format) else {
            // Self attestation: alg matches the credential key, which signed the data.
            guard alg == credential.publicKey.algorithm else {
                throw WebAuthnError(
                    .invalidAttestation,
                    "packed self attestation alg \(alg) differs from the key's \(credential.publicKey.algorithm)",
                    step: step)
            }
            guard credential.publicKey.isValidSignature(signature, for: signedData) else {
                throw WebAuthnError(
                    .invalidAttestation, "packed self attestation signature does not verify", step: step)
            }
            return VerifiedAttestationStatement(type: .self, trustPath: [])
        }

        let leaf = certificates[0]
        let key: SignatureVerifyingKey
        do {
            key = try SignatureVerifyingKey.make(algorithm: alg, certificateKey: leaf.publicKey)
        } catch {
            throw error.inStep(step)
        }
        guard key.isValidSignature(signature, for: signedData) else {
            throw WebAuthnError(.invalidAttestation, "packed attestation signature does not verify", step: step)
        }
        // §8.2.1: the certificate meets the requirements; an AAGUID it states is authData's.
        let certified = try Self.checkCertificateRequirements(leaf, aaguid: credential.aaguid)
        return VerifiedAttestationStatement(
            type: .basic, trustPath: certificates, aaguid: certified.map(StatementAAGUID.certified) ?? .claimed)
    }

    /// §8.2.1: packed attestation statement certificate requirements. Returns the AAGUID the
    /// id-fido-gen-ce-aaguid extension states (equal to `aaguid`), or `nil` when there is none.
    @discardableResult
    static func checkCertificateRequirements(
        _ certificate: Certificate, aaguid: [UInt8]
    ) throws(WebAuthnError) -> [UInt8]? {
        let step = AttestationStatementFields.step
        func refuse(_ reason: String) -> WebAuthnError {
            WebAuthnError(.invalidAttestation, "packed attestation certificate: \(reason)", step: step)
        }
        guard certificate.version == .v3 else { throw refuse("version must be 3") }
        let countries = AttestationStatementFields.subjectValues(certificate, .RDNAttributeType.countryName)
        guard let country = countries.first, country.count == 2, country.allSatisfy(\.isLetter) else {
            throw refuse("Subject-C must be an ISO 3166 country code")
        }
        guard !AttestationStatementFields.subjectValues(certificate, .RDNAttributeType.organizationName).isEmpty else {
            throw refuse("Subject-O is missing")
        }
        let units = AttestationStatementFields.subjectValues(certificate, .RDNAttributeType.organizationalUnitName)
        guard units.contains("Authenticator Attestation") else {
            throw refuse("Subject-OU must be \"Authenticator Attestation\"")
        }
        guard !AttestationStatementFields.subjectValues(certificate, .RDNAttributeType.commonName).isEmpty else {
            throw refuse("Subject-CN is missing")
        }
        let constraints: BasicConstraints?
        do { constraints = try certificate.extensions.basicConstraints } catch {
            throw refuse("Basic Constraints extension is malformed")
        }
        if case .isCertificateAuthority = constraints { throw refuse("Basic Constraints must say CA false") }
        if let (certificateAAGUID, critical) = try AttestationStatementFields.certificateAAGUID(certificate) {
            guard !critical else { throw refuse("the AAGUID extension must not be critical") }
            guard certificateAAGUID == aaguid else {
                throw refuse("the AAGUID extension does not match the authenticator data")
            }
            return certificateAAGUID
        }
        return nil
    }
}
