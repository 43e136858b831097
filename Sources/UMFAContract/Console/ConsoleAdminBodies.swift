/// One operator passkey of the admin console, without its key material.
public struct ConsoleCredentialSummary: Codable, Sendable, Equatable {
    /// The credential id (base64url), for removing it.
    public var credentialID: String
    /// The name the operator gave it.
    public var name: String
    /// When it was enrolled (RFC 3339).
    public var createdAt: String
    /// When it last signed in (RFC 3339); absent when never.
    public var lastUsedAt: String?
    /// How many live console sessions it started.
    public var sessions: Int

    /// Creates a summary.
    public init(credentialID: String, name: String, createdAt: String, lastUsedAt: String? = nil, sessions: Int) {
        self.credentialID = credentialID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.sessions = sessions
    }

    enum CodingKeys: String, CodingKey {
        case credentialID = "credential_id"
        case name
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case sessions
    }
}

/// `GET /api/admin/console/credentials`: `{trace_id, credentials}`, oldest first.
public struct ConsoleCredentialListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Every operator passkey.
    public var credentials: [ConsoleCredentialSummary]

    /// Creates an answer.
    public init(traceID: String, credentials: [ConsoleCredentialSummary]) {
        self.traceID = traceID
        self.credentials = credentials
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case credentials
    }

    /// An example with every member.
    public static let example = ConsoleCredentialListResponse(
        traceID: Examples.traceID,
        credentials: [
            ConsoleCredentialSummary(
                credentialID: "AQIDBA", name: "Ops laptop", createdAt: Examples.time, lastUsedAt: Examples.time,
                sessions: 1)
        ])
}

/// One live console session, by an id that is not its cookie.
public struct ConsoleSessionSummary: Codable, Sendable, Equatable {
    /// The session's id (the SHA-256 of its cookie, base64url), for ending it.
    public var sessionID: String
    /// The passkey that signed in (base64url).
    public var credentialID: String
    /// That passkey's name.
    public var passkeyName: String
    /// When it started (RFC 3339).
    public var createdAt: String
    /// When it ends (RFC 3339).
    public var expiresAt: String
    /// Whether it is the session of this request.
    public var current: Bool

    /// Creates a summary.
    public init(
        sessionID: String, credentialID: String, passkeyName: String, createdAt: String, expiresAt: String,
        current: Bool
    ) {
        self.sessionID = sessionID
        self.credentialID = credentialID
        self.passkeyName = passkeyName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case credentialID = "credential_id"
        case passkeyName = "passkey_name"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case current
    }
}

/// `GET /api/admin/console/sessions`: `{trace_id, sessions}`, oldest first.
public struct ConsoleSessionListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Every live session.
    public var sessions: [ConsoleSessionSummary]

    /// Creates an answer.
    public init(traceID: String, sessions: [ConsoleSessionSummary]) {
        self.traceID = traceID
        self.sessions = sessions
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case sessions
    }

    /// An example with every member.
    public static let example = ConsoleSessionListResponse(
        traceID: Examples.traceID,
        sessions: [
            ConsoleSessionSummary(
                sessionID: "q2Vh…", credentialID: "AQIDBA", passkeyName: "Ops laptop", createdAt: Examples.time,
                expiresAt: Examples.time, current: false)
        ])
}

/// `DELETE /api/admin/console/credentials/{credential_id}`: removed, with the sessions it ended.
public struct ConsoleCredentialRemovedResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Always `true`.
    public var removed: Bool
    /// How many of its sessions ended with it.
    public var sessionsEnded: Int

    /// Creates an answer.
    public init(traceID: String, removed: Bool = true, sessionsEnded: Int) {
        self.traceID = traceID
        self.removed = removed
        self.sessionsEnded = sessionsEnded
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case removed
        case sessionsEnded = "sessions_ended"
    }

    /// An example with every member.
    public static let example = ConsoleCredentialRemovedResponse(traceID: Examples.traceID, sessionsEnded: 1)
}

// MARK: - openapi.yaml

extension ConsoleCredentialSummary: DocumentedFields {
    static let schemaDescription: String? = "One operator passkey of the admin console, without its key material"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .credentialID: FieldDoc("The credential id (base64url), for removing it")
        case .name: FieldDoc("The name the operator gave it")
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .lastUsedAt: FieldDoc("Absent when it never signed in", .format("date-time"))
        case .sessions: FieldDoc("How many live console sessions it started", .minimum(0))
        }
    }
}

extension ConsoleCredentialListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .credentials: .ref(ConsoleCredentialSummary.self, "Every operator passkey, oldest first")
        }
    }
}

extension ConsoleCredentialRemovedResponse: DocumentedFields {
    static let schemaDescription: String? = "The passkey is removed; every session it started has ended"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .removed: FieldDoc("Always true", .constant(true))
        case .sessionsEnded: FieldDoc("How many of its sessions ended with it", .minimum(0))
        }
    }
}

extension ConsoleSessionSummary: DocumentedFields {
    static let schemaDescription: String? = "One live console session, by an id that is not its cookie"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .sessionID: FieldDoc("The SHA-256 of the session's cookie (base64url), for ending it")
        case .credentialID: FieldDoc("The passkey that signed in (base64url)")
        case .passkeyName: .plain
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .expiresAt: FieldDoc(nil, .format("date-time"))
        case .current: FieldDoc("Whether it is the session whose cookie came with this request")
        }
    }
}

extension ConsoleSessionListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .sessions: .ref(ConsoleSessionSummary.self, "Every live session, oldest first")
        }
    }
}
