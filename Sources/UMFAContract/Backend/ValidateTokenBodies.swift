import UMFAEncoding

/// `POST /api/umfa/validate-token`, exactly as the UMFA documentation describes it.
public struct ValidateTokenRequest: ContractBody, Equatable {
    /// The application, a UUID; the API key must belong to it.
    public var applicationID: String
    /// The user the token must be for.
    public var userID: String
    /// A login JWT (a string), or with ``tokenType`` `credential` an `AuthenticationResponseJSON`
    /// as an object or as JSON text.
    public var token: JSONValue
    /// `jwt` (the default) or `credential`; the spelling `token-type` is read too.
    public var tokenType: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String, token: JSONValue, tokenType: String? = nil, traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.token = token
        self.tokenType = tokenType
        self.traceID = traceID
    }

    /// A request to check a login JWT.
    public init(applicationID: String, userID: String, jwt: String, traceID: String? = nil) {
        self.init(applicationID: applicationID, userID: userID, token: .string(jwt), traceID: traceID)
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case token
        case tokenType = "token_type"
        case tokenTypeDashed = "token-type"
        case traceID = "trace_id"
    }

    /// Decodes the body; `token-type` stands in for `token_type`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        applicationID = try container.decode(String.self, forKey: .applicationID)
        userID = try container.decode(String.self, forKey: .userID)
        token = try container.decode(JSONValue.self, forKey: .token)
        tokenType =
            try container.decodeIfPresent(String.self, forKey: .tokenType)
            ?? container.decodeIfPresent(String.self, forKey: .tokenTypeDashed)
        traceID = try container.decodeIfPresent(String.self, forKey: .traceID)
    }

    /// Encodes the body with `token_type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(applicationID, forKey: .applicationID)
        try container.encode(userID, forKey: .userID)
        try container.encode(token, forKey: .token)
        try container.encodeIfPresent(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(traceID, forKey: .traceID)
    }

    /// An example with every member.
    public static let example = ValidateTokenRequest(
        applicationID: Examples.applicationID, userID: "alice", token: .string("eyJ"), tokenType: "jwt",
        traceID: Examples.traceID)
}

/// The answer of `validate-token`: `{user_id, trace_id}`.
public struct ValidateTokenResponse: ContractBody, TraceCarrying, Equatable {
    /// The user the token was for.
    public var userID: String
    /// The request's trace id.
    public var traceID: String

    /// Creates an answer.
    public init(userID: String, traceID: String) {
        self.userID = userID
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = ValidateTokenResponse(userID: "alice", traceID: Examples.traceID)
}

// MARK: - openapi.yaml

extension ValidateTokenRequest: DocumentedFields {
    static let schemaDescription: String? = "Validate a login JWT or a credential assertion"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: FieldDoc("The application, a UUID; the API key must belong to it", .format("uuid"))
        case .userID: FieldDoc("The user the token must be for", .minLength(1), .maxLength(256))
        case .token:
            .written([
                "description":
                    "With token_type jwt (or absent), a login JWT string; with token_type credential, an AuthenticationResponseJSON as an object or as JSON text",
                "oneOf": [["type": "string"], ["type": "object"]],
            ])
        case .tokenType:
            FieldDoc(
                "What token is; any other value is a 400. The spelling token-type, used in the UMFA documentation's own example, is accepted too (read, never written)",
                .enumeration(["jwt", "credential"]), .defaultValue("jwt"))
        case .tokenTypeDashed: .plain
        case .traceID: .ref(.traceID)
        }
    }
}

extension ValidateTokenResponse: DocumentedFields {
    static let schemaDescription: String? = "The token is valid"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .userID: FieldDoc("The user the token was for")
        case .traceID: .ref(.echoedTraceID)
        }
    }
}
