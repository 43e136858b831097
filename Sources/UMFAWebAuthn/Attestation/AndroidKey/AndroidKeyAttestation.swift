import Foundation
import UMFACBOR
import X509

/// The `android-key` attestation statement format (WebAuthn L3 §8.4): a key generated in
/// Android's hardware-backed Keystore, attested by a certificate chain to Google.
public struct AndroidKeyAttestation: AttestationFormatVerifier {
    /// `android-key`.
    public let format = "android-key"
    /// Whether `purpose` and `origin` may come from the software-enforced list as well; by
    /// default only the hardware-enforced (TEE or StrongBox) list counts.
    public var acceptSoftwareEnforced: Bool
    /// Whether `purpose` and `origin` must be present; by default they must. When `false`, an
    /// absent field passes and only a present, wrong value is refused (the specification's own
    /// android-key test vector has empty authorization lists).
    public var requireAuthorizations: Bool

    /// Creates the verifier.
    public init(acceptSoftwareEnforced: Bool = false, requireAuthorizations: Bool = true) {
        self.acceptSoftwareEnforced = acceptSoftwareEnforced
        self.requireAuthorizations = requireAuthorizations
    }

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "android-key: \(reason)", step: AttestationStatementFields.step)
    }

    /// Checks the statement as §8.4's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        // Step 1: the statement is well formed; extract its fields.
        let alg = try AttestationStatementFields.algorithm(statement, format: format)
        let signature = try AttestationStatementFields.signature(statement, format: format)
        guard let certificates = try AttestationStatementFields.certificates(statement, format: format) else {
            throw Self.refuse("x5c is missing")
        }
        guard let credential = authenticatorData.attestedCredentialData else {
            throw Self.refuse("no attested credential data")
        }
        let leaf = certificates[0]
        // Step 2: sig is the leaf key's signature over authenticatorData ‖ clientDataHash.
        guard
            try AttestationSignature.isValid(
                signature, for: authenticatorData.rawBytes + clientDataHash, certificate: leaf, algorithm: alg,
                format: format)
        else {
            throw Self.refuse("sig is not the certificate key's signature")
        }
        // Step 3: the leaf certifies the credential public key itself.
        guard AttestationSignature.certificateHoldsCredentialKey(leaf, credential.publicKey) else {
            throw Self.refuse("the certificate's public key is not the credential public key")
        }
        // Step 4: the key description's attestationChallenge is clientDataHash.
        guard let ext = leaf.extensions[oid: AndroidKeyDescription.oid] else {
            throw Self.refuse("the certificate has no key description extension")
        }
        let description = try AndroidKeyDescription(extensionValue: ext.value)
        guard description.attestationChallenge == clientDataHash else {
            throw Self.refuse("attestationChallenge is not clientDataHash")
        }
        // Step 5: the key is scoped to this RP: allApplications is in neither list.
        guard !description.softwareEnforced.allApplications, !description.hardwareEnforced.allApplications else {
            throw Self.refuse("the key is usable by all applications (allApplications is present)")
        }
        // Step 5 (continued): origin is KM_ORIGIN_GENERATED and purpose is KM_PURPOSE_SIGN.
        let lists =
            acceptSoftwareEnforced
            ? [description.hardwareEnforced, description.softwareEnforced] : [description.hardwareEnforced]
        let origins = lists.compactMap(\.origin)
        let purposes = lists.map(\.purposes).filter { !$0.isEmpty }
        guard origins.contains(AndroidKeyDescription.originGenerated) || (!requireAuthorizations && origins.isEmpty)
        else {
            throw Self.refuse("the key was not generated in the Keystore (origin is not KM_ORIGIN_GENERATED)")
        }
        guard purposes.contains([AndroidKeyDescription.purposeSign]) || (!requireAuthorizations && purposes.isEmpty)
        else {
            throw Self.refuse("the key's purpose is not exactly KM_PURPOSE_SIGN")
        }
        // Step 6: attestation type Basic with the x5c trust path.
        return VerifiedAttestationStatement(type: .basic, trustPath: certificates)
    }
}
