import Foundation
import UMFACBOR

/// The `compound` attestation statement format (WebAuthn L3 §8.9): two or more statements of
/// other formats over the same authenticator data, each verified by its own format.
public struct CompoundAttestation: AttestationFormatVerifier {
    /// `compound`.
    public let format = "compound"
    /// The formats a sub-statement may use; `compound` itself is never one of them.
    public let formats: AttestationFormatRegistry

    /// Creates the verifier over `formats`.
    public init(formats: AttestationFormatRegistry = .single) {
        self.formats = formats
    }

    static func refuse(_ reason: String, code: WebAuthnError.Code = .invalidAttestation) -> WebAuthnError {
        WebAuthnError(code, "compound: \(reason)", step: AttestationStatementFields.step)
    }

    /// Checks every sub-statement as §8.9's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        // Step 1: attStmt is an array of at least two statements.
        guard statement.count == 1, let items = statement["attStmt"]?.arrayValue else {
            throw Self.refuse("attStmt must be an array of attestation statements")
        }
        guard items.count >= 2 else { throw Self.refuse("attStmt must hold at least two statements") }
        // Step 2: each sub-statement verifies by its own format's procedure.
        var components: [VerifiedAttestationComponent] = []
        for (index, item) in items.enumerated() {
            guard let entry = item.mapValue, let subFormat = entry["fmt"]?.stringValue,
                let subStatement = entry["attStmt"]?.mapValue
            else {
                throw Self.refuse("attStmt[\(index)] must be a map with a text fmt and a map attStmt")
            }
            guard subFormat != format else { throw Self.refuse("attStmt[\(index)] may not itself be compound") }
            guard let verifier = formats.verifier(for: subFormat) else {
                throw Self.refuse(
                    "attStmt[\(index)] has the unsupported format \"\(subFormat)\"", code: .unsupportedAttestationFormat
                )
            }
            let verified = try verifier.verify(
                statement: subStatement, authenticatorData: authenticatorData, clientDataHash: clientDataHash,
                at: time)
            components.append(VerifiedAttestationComponent(format: subFormat, statement: verified))
        }
        // Step 3: every statement verified; the strongest type stands for the whole.
        let strongest = components.max { $0.statement.type.strength < $1.statement.type.strength }
        return VerifiedAttestationStatement(
            type: strongest?.statement.type ?? .none, trustPath: strongest?.statement.trustPath ?? [],
            components: components)
    }
}

extension AttestationType {
    /// Orders types by what they prove: none, then self, then certified.
    var strength: Int {
        switch self {
        case .none: return 0
        case .self: return 1
        default: return 2
        }
    }
}
