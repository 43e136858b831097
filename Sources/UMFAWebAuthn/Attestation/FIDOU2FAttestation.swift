import Foundation
import UMFACBOR
import X509

/// The `fido-u2f` attestation statement format (WebAuthn L3 §8.6), used by U2F security keys.
///
/// The AAGUID that counts for it is always zero (``StatementAAGUID/fixed(_:)``): nothing in
/// the statement signs the AAGUID in authenticator data, so a non-zero one is not refused but
/// ignored, and can never match an AAGUID allow list or dodge a deny list entry for zero.
public struct FIDOU2FAttestation: AttestationFormatVerifier {
    /// `fido-u2f`.
    public let format = "fido-u2f"

    /// Creates the verifier.
    public init() {}

    /// Checks the statement as §8.6's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        let step = AttestationStatementFields.step
        let signature = try AttestationStatementFields.signature(statement, format: format)
        guard let certificates = try AttestationStatementFields.certificates(statement, format: format),
            certificates.count == 1
        else {
            throw WebAuthnError(.invalidAttestation, "fido-u2f x5c must hold exactly one certificate", step: step)
        }
        guard
            let certificateKey = try? SignatureVerifyingKey.make(
                algorithm: .es256, certificateKey: certificates[0].publicKey)
        else {
            throw WebAuthnError(.invalidAttestation, "fido-u2f certificate key must be EC P-256", step: step)
        }
        guard let credential = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.invalidAttestation, "fido-u2f: no attested credential data", step: step)
        }
        guard let publicKeyU2F = credential.publicKey.p256UncompressedPoint else {
            throw WebAuthnError(.invalidAttestation, "fido-u2f credential key must be EC2 P-256", step: step)
        }
        let verificationData =
            [0x00] + authenticatorData.rpIDHash + clientDataHash + credential.credentialID + publicKeyU2F
        guard certificateKey.isValidSignature(signature, for: verificationData) else {
            throw WebAuthnError(.invalidAttestation, "fido-u2f attestation signature does not verify", step: step)
        }
        // U2F authenticators have no AAGUID (CTAP2's U2F mapping fills it with zeros), and the signature
        // does not cover authData's: the AAGUID that counts is zero, a non-zero claim is ignored.
        return VerifiedAttestationStatement(type: .basic, trustPath: certificates, aaguid: .fixed(AAGUID.zero))
    }
}
