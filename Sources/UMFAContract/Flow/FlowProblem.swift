/// A problem of the API-driven flow (`application/problem+json`, RFC 9457, docs/contract.md §6).
public struct FlowProblem: Codable, Sendable, Equatable, Error {
    /// `application/problem+json`.
    public static let mediaType = "application/problem+json"

    /// The problem types of docs/contract.md §6.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case invalidInput = "urn:umfa:problem:invalid-input"
        case incorrectCredentials = "urn:umfa:problem:incorrect-credentials"
        case authenticationFailed = "urn:umfa:problem:authentication-failed"
        case tooManyAttempts = "urn:umfa:problem:too-many-attempts"
        case sessionExpired = "urn:umfa:problem:session-expired"
        case unexpected = "urn:umfa:problem:unexpected"
        case errorAuthorizationResponse = "urn:umfa:problem:error-authorization-response"

        /// The HTTP status UMFA answers it with.
        public var status: Int {
            switch self {
            case .authenticationFailed: 403
            case .tooManyAttempts: 429
            case .unexpected: 500
            default: 400
            }
        }
    }

    /// A field that was wrong.
    public struct InvalidField: Codable, Sendable, Equatable {
        /// `missing` or `invalidValue`.
        public enum Reason: String, Codable, Sendable {
            case missing
            case invalidValue
        }

        /// The field's name.
        public var name: String
        /// What is wrong with it.
        public var reason: Reason
        /// Words for the person.
        public var detail: String?

        /// Creates an entry.
        public init(name: String, reason: Reason, detail: String? = nil) {
            self.name = name
            self.reason = reason
            self.detail = detail
        }
    }

    /// The problem type.
    public var type: Kind
    /// A short summary.
    public var title: String
    /// Messages for the person.
    public var messages: [FlowMessage]?
    /// The fields that were wrong.
    public var invalidFields: [InvalidField]?
    /// The OAuth error (`error-authorization-response`).
    public var error: String?
    /// The OAuth error's description.
    public var errorDescription: String?
    /// The request's trace id.
    public var traceID: String?

    /// Creates a problem.
    public init(
        _ type: Kind, _ title: String, invalidFields: [InvalidField]? = nil, error: String? = nil,
        errorDescription: String? = nil, traceID: String? = nil
    ) {
        self.type = type
        self.title = title
        self.messages = [FlowMessage(text: title, classList: ["error"])]
        self.invalidFields = invalidFields
        self.error = error
        self.errorDescription = errorDescription
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case type, title, messages, invalidFields, error
        case errorDescription = "error_description"
        case traceID = "trace_id"
    }
}
