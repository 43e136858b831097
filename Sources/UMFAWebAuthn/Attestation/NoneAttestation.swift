import Foundation
import UMFACBOR

/// The `none` attestation statement format (WebAuthn L3 §8.7): an empty statement.
public struct NoneAttestation: AttestationFormatVerifier {
    /// `none`.
    public let format = "none"

    /// Creates the verifier.
    public init() {}

    /// Accepts only an empty statement.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        guard statement.count == 0 else {
            throw WebAuthnError(.invalidAttestation, "a none attestation statement must be empty", step: "7.1 step 22")
        }
        return VerifiedAttestationStatement(type: .none, trustPath: [])
    }
}
