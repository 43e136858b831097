/// Every error: `{"status", "trace_id", "message"}` with the same HTTP status (docs/contract.md §2).
public struct ErrorResponse: ContractBody, TraceCarrying, Equatable, Error {
    /// The HTTP status code.
    public var status: Int
    /// The request's trace id.
    public var traceID: String
    /// What went wrong, for a person; never a secret.
    public var message: String
    /// Why, for a program, where a page acts on it: only `unknown_credential` (a discoverable
    /// sign-in presented a credential the application does not hold; the page may call the
    /// WebAuthn Signal API's `signalUnknownCredential`). Absent otherwise.
    public var reason: String?

    /// Creates an error body.
    public init(status: Int, traceID: String, message: String) {
        self.init(status: status, traceID: traceID, message: message, reason: nil)
    }

    /// Creates an error body that names its reason.
    public init(status: Int, traceID: String, message: String, reason: String?) {
        self.status = status
        self.traceID = traceID
        self.message = message
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case status, message, reason
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = ErrorResponse(
        status: 401, traceID: Examples.traceID, message: "Authentication failed", reason: "unknown_credential")
}

/// `GET /health`: `{status: "ok", trace_id}`.
public struct HealthResponse: ContractBody, TraceCarrying, Equatable {
    /// `ok`.
    public var status: String
    /// The request's trace id.
    public var traceID: String

    /// Creates an answer.
    public init(status: String = "ok", traceID: String) {
        self.status = status
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case status
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = HealthResponse(traceID: Examples.traceID)
}

// MARK: - openapi.yaml

extension ErrorResponse: DocumentedFields {
    static let schemaName = "Error"
    static let schemaDescription: String? = "Every error, with the same HTTP status as the answer"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .status: FieldDoc("The HTTP status code", .minimum(400), .maximum(599))
        case .message: FieldDoc("What went wrong, for a person; never a secret")
        case .reason:
            FieldDoc(
                "unknown_credential: a discoverable sign-in presented a credential the application does not hold "
                    + "(the page may call the WebAuthn Signal API's signalUnknownCredential); absent otherwise",
                .enumeration(["unknown_credential"]))
        case .traceID: .ref(.echoedTraceID)
        }
    }
}

extension HealthResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .status: FieldDoc(nil, .enumeration(["ok"]))
        case .traceID: .ref(.echoedTraceID)
        }
    }
}
