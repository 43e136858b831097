/// `POST /api/umfa/enrollment-tokens`: a one-time grant to register a device for a user.
public struct EnrollmentTokenRequest: ContractBody, Equatable {
    /// The application, a UUID; the API key must belong to it.
    public var applicationID: String
    /// The user the grant is for.
    public var userID: String
    /// Lifetime in seconds (default 600, at most 86,400).
    public var ttlSeconds: Int?
    /// When the application last checked the user's password (RFC 3339); copied into login tokens.
    public var userpwTime: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String, ttlSeconds: Int? = nil, userpwTime: String? = nil,
        traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.ttlSeconds = ttlSeconds
        self.userpwTime = userpwTime
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case ttlSeconds = "ttl_seconds"
        case userpwTime = "userpw_time"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = EnrollmentTokenRequest(
        applicationID: Examples.applicationID, userID: "alice", ttlSeconds: 600, userpwTime: Examples.time,
        traceID: Examples.traceID)
}

/// The answer of `enrollment-tokens`: `{trace_id, enrollment_token, expires_at}`.
public struct EnrollmentTokenResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The grant, shown once (`umfa_et_…`).
    public var enrollmentToken: String
    /// When it stops working (RFC 3339).
    public var expiresAt: String

    /// Creates an answer.
    public init(traceID: String, enrollmentToken: String, expiresAt: String) {
        self.traceID = traceID
        self.enrollmentToken = enrollmentToken
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case enrollmentToken = "enrollment_token"
        case expiresAt = "expires_at"
    }

    /// An example with every member.
    public static let example = EnrollmentTokenResponse(
        traceID: Examples.traceID, enrollmentToken: "umfa_et_x", expiresAt: Examples.time)
}

// MARK: - openapi.yaml

extension EnrollmentTokenRequest: DocumentedFields {
    static let schemaDescription: String? = "A one-time grant to register a device for a user"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: FieldDoc("The application, a UUID; the API key must belong to it", .format("uuid"))
        case .userID: .ref(.userID)
        case .ttlSeconds: FieldDoc("Lifetime in seconds", .minimum(1), .maximum(86400), .defaultValue(600))
        case .userpwTime:
            FieldDoc(
                "When the application last checked the user's password (RFC 3339); copied into the login tokens of the registration",
                .format("date-time"))
        case .traceID: .ref(.traceID)
        }
    }
}

extension EnrollmentTokenResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .enrollmentToken: FieldDoc("The single-use grant, shown once (umfa_et_...)")
        case .expiresAt: FieldDoc("When it stops working (RFC 3339)", .format("date-time"))
        }
    }
}
