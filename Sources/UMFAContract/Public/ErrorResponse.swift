/// Every error: `{"status", "trace_id", "message"}` with the same HTTP status (DESIGN.md §2).
public struct ErrorResponse: ContractBody, TraceCarrying, Equatable, Error {
    /// The HTTP status code.
    public var status: Int
    /// The request's trace id.
    public var traceID: String
    /// What went wrong, for a person; never a secret.
    public var message: String

    /// Creates an error body.
    public init(status: Int, traceID: String, message: String) {
        self.status = status
        self.traceID = traceID
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case status, message
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = ErrorResponse(status: 400, traceID: Examples.traceID, message: "user_id is required")
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

/// `POST /api/demo/validate-token`: the demo page's check of a login token (no API key; the
/// development application only).
public struct DemoValidateRequest: ContractBody, Equatable {
    /// The development application, a UUID; absent means that one.
    public var applicationID: String?
    /// The user the token must be for.
    public var userID: String
    /// The login token.
    public var token: String
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(applicationID: String? = nil, userID: String, token: String, traceID: String? = nil) {
        self.applicationID = applicationID
        self.userID = userID
        self.token = token
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case token
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = DemoValidateRequest(
        applicationID: Examples.applicationID, userID: "alice", token: "eyJ", traceID: Examples.traceID)
}
