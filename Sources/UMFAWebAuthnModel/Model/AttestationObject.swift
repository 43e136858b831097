import UMFACBOR

/// The attestation object (WebAuthn L3 §6.5.4): format, statement and authenticator data.
public struct AttestationObject: Sendable, Hashable {
    /// The attestation statement format identifier, such as `packed`.
    public let format: String
    /// The format-specific attestation statement. A `compound` statement, which is an array,
    /// is held as the map `{"attStmt": [...]}`.
    public let statement: CBORMap
    /// The authenticator data.
    public let authenticatorData: AuthenticatorData

    /// Decodes an attestation object from CBOR.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError(
                .malformedResponse, "attestationObject is not valid CBOR: \(error)", step: "7.1 step 13")
        }
        guard let map = value.mapValue else {
            throw WebAuthnError(.malformedResponse, "attestationObject is not a CBOR map", step: "7.1 step 13")
        }
        guard let format = map["fmt"]?.stringValue else {
            throw WebAuthnError(.malformedResponse, "attestationObject has no text fmt", step: "7.1 step 13")
        }
        if format == "compound", let items = map["attStmt"]?.arrayValue {
            statement = CBORMap(["attStmt": .array(items)])
        } else if let mapStatement = map["attStmt"]?.mapValue {
            statement = mapStatement
        } else {
            throw WebAuthnError(.malformedResponse, "attestationObject has no attStmt map", step: "7.1 step 13")
        }
        guard let authData = map["authData"]?.bytesValue else {
            throw WebAuthnError(.malformedResponse, "attestationObject has no authData bytes", step: "7.1 step 13")
        }
        self.format = format
        do {
            self.authenticatorData = try AuthenticatorData(bytes: authData)
        } catch {
            throw error.inStep("7.1 step 13")
        }
    }

    /// Creates an attestation object from its parts, as an authenticator does.
    public init(format: String, statement: CBORMap, authenticatorData: AuthenticatorData) {
        self.format = format
        self.statement = statement
        self.authenticatorData = authenticatorData
    }

    private var encodedStatement: CBORValue {
        if format == "compound", statement.count == 1, let items = statement["attStmt"]?.arrayValue {
            return .array(items)
        }
        return .map(statement)
    }

    /// The CBOR encoding, with keys in CTAP2 canonical order.
    public var encoded: [UInt8] {
        CBOREncoder.encode(
            .map(
                CBORMap([
                    "fmt": .textString(format), "attStmt": encodedStatement,
                    "authData": .byteString(authenticatorData.rawBytes),
                ])))
    }
}
