/// One user of an application, as the admin console lists them.
public struct AdminUserSummary: Codable, Sendable, Equatable {
    /// The application's user id.
    public var userID: String
    /// The display name given at registration.
    public var displayName: String
    /// The e-mail address of the user's profile, if any.
    public var email: String?
    /// When the user was first seen (RFC 3339).
    public var createdAt: String
    /// How many passkeys the user has.
    public var credentialCount: Int

    /// Creates a summary.
    public init(userID: String, displayName: String, email: String?, createdAt: String, credentialCount: Int) {
        self.userID = userID
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
        self.credentialCount = credentialCount
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case displayName = "display_name"
        case email
        case createdAt = "created_at"
        case credentialCount = "credential_count"
    }

    static let example = AdminUserSummary(
        userID: "alice", displayName: "Alice", email: "alice@example.com", createdAt: Examples.time,
        credentialCount: 2)
}

/// `GET /api/admin/applications/{id}/users`: the user a `query` names (user id or e-mail), or
/// the newest users.
public struct AdminUserListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The users found.
    public var users: [AdminUserSummary]

    /// Creates an answer.
    public init(traceID: String, users: [AdminUserSummary]) {
        self.traceID = traceID
        self.users = users
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case users
    }

    /// An example with every member.
    public static let example = AdminUserListResponse(traceID: Examples.traceID, users: [.example])
}

/// One token signing key, as the admin sees it (never the private key).
public struct SigningKeySummary: Codable, Sendable, Equatable {
    /// The key id (`kid`).
    public var kid: String
    /// RS256, ES256 or EdDSA.
    public var alg: String
    /// When it was made (RFC 3339).
    public var createdAt: String
    /// When it stopped signing (RFC 3339); absent for the current key of its algorithm.
    public var retiredAt: String?

    /// Creates a summary.
    public init(kid: String, alg: String, createdAt: String, retiredAt: String?) {
        self.kid = kid
        self.alg = alg
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }

    enum CodingKeys: String, CodingKey {
        case kid, alg
        case createdAt = "created_at"
        case retiredAt = "retired_at"
    }

    static let example = SigningKeySummary(
        kid: "k-2026-11", alg: "RS256", createdAt: Examples.time, retiredAt: Examples.time)
}

/// `GET /api/admin/signing-keys`: every signing key, newest first.
public struct SigningKeyListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The keys.
    public var keys: [SigningKeySummary]

    /// Creates an answer.
    public init(traceID: String, keys: [SigningKeySummary]) {
        self.traceID = traceID
        self.keys = keys
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case keys
    }

    /// An example with every member.
    public static let example = SigningKeyListResponse(traceID: Examples.traceID, keys: [.example])
}

// MARK: - openapi.yaml

extension AdminUserListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .users:
            .written([
                "type": "array",
                "items": [
                    "type": "object", "required": ["user_id", "display_name", "created_at", "credential_count"],
                    "properties": [
                        "user_id": ["type": "string"], "display_name": ["type": "string"], "email": ["type": "string"],
                        "created_at": ["type": "string", "format": "date-time"],
                        "credential_count": ["type": "integer"],
                    ],
                ],
            ])
        }
    }
}

extension SigningKeyListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .keys:
            .written([
                "type": "array", "description": "Newest first; never a private key",
                "items": [
                    "type": "object", "required": ["kid", "alg", "created_at"],
                    "properties": [
                        "kid": ["type": "string"], "alg": ["type": "string", "enum": ["RS256", "ES256", "EdDSA"]],
                        "created_at": ["type": "string", "format": "date-time"],
                        "retired_at": [
                            "type": "string", "format": "date-time",
                            "description": "Absent for the current key of its algorithm",
                        ],
                    ],
                ],
            ])
        }
    }
}
