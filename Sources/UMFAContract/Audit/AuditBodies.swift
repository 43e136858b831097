import UMFAEncoding

/// One security event (docs/contract.md §8): what happened, to whom, caused by which request. Never
/// carries a secret.
public struct AuditEvent: Codable, Sendable, Equatable {
    /// A time-ordered id (UUID version 7).
    public var id: String
    /// When it happened (RFC 3339, milliseconds).
    public var occurredAt: String
    /// The application it concerns; absent for server-wide events (an admin signing in).
    public var applicationID: String?
    /// What happened, such as `authentication.failed`.
    public var action: String
    /// Who caused it: `user:<user id>`, `api_key:<key id>`, `admin`, `client:<client id>`, `anonymous`.
    public var actor: String
    /// The user it concerns.
    public var userID: String?
    /// The credential it concerns, base64url.
    public var credentialID: String?
    /// The address of the client whose request caused it.
    public var clientAddress: String
    /// The trace id of that request (as in its answer and the server log).
    public var traceID: String
    /// What else an operator needs to know.
    public var details: [String: JSONValue]

    /// Creates an event view.
    public init(
        id: String, occurredAt: String, applicationID: String?, action: String, actor: String, userID: String?,
        credentialID: String?, clientAddress: String, traceID: String, details: [String: JSONValue]
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.applicationID = applicationID
        self.action = action
        self.actor = actor
        self.userID = userID
        self.credentialID = credentialID
        self.clientAddress = clientAddress
        self.traceID = traceID
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case id
        case occurredAt = "occurred_at"
        case applicationID = "application_id"
        case action, actor
        case userID = "user_id"
        case credentialID = "credential_id"
        case clientAddress = "client_address"
        case traceID = "trace_id"
        case details
    }

    static let example = AuditEvent(
        id: "019ab2c4-5d6e-7f80-9a1b-2c3d4e5f6071", occurredAt: Examples.time, applicationID: Examples.applicationID,
        action: "authentication.succeeded", actor: "user:alice", userID: "alice", credentialID: "AQIDBA",
        clientAddress: "192.0.2.7", traceID: Examples.traceID, details: ["user_verified": .bool(true)])
}

/// `GET /api/admin/audit-events` and `GET /api/umfa/audit-events`: a page of events, oldest
/// first.
public struct AuditEventListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The events of this page.
    public var events: [AuditEvent]
    /// Pass as `cursor` for the next page; absent on the last page.
    public var nextCursor: String?

    /// Creates an answer.
    public init(traceID: String, events: [AuditEvent], nextCursor: String?) {
        self.traceID = traceID
        self.events = events
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case events
        case nextCursor = "next_cursor"
    }

    /// A page with one event.
    public static let example = AuditEventListResponse(
        traceID: Examples.traceID, events: [.example], nextCursor: "AAABmrLEXW4.019ab2c4-5d6e-7f80-9a1b-2c3d4e5f6071")
}

// MARK: - openapi.yaml

extension AuditEvent: DocumentedFields {
    static let schemaDescription: String? = "One security event (docs/contract.md §8); never carries a secret"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .id: FieldDoc("A time-ordered id (UUID version 7)")
        case .occurredAt: FieldDoc(nil, .format("date-time"))
        case .applicationID: FieldDoc("Absent for server-wide events", .format("uuid"))
        case .action:
            FieldDoc(
                "registration.succeeded, authentication.succeeded, authentication.failed, credential.renamed, credential.deleted, recovery.codes_created, recovery.used, recovery.failed, approval.approved, approval.denied, refresh_token.reuse_detected, sessions.revoked, api_key.created, api_key.revoked, application.created, application.updated, oauth_client.created, oauth_client.updated, oauth_client.deleted, oauth_client.secret_rotated, oauth_client.registered, initial_access_token.created, signing_key.rotated, master_key.rotated, admin.signed_in, admin.signed_out, admin.sign_in_failed, admin.passkey_enrolled, admin.passkey_removed, admin.session_ended, admin.passkeys_revoked"
            )
        case .actor: FieldDoc("user:<user id>, api_key:<key id>, admin, client:<client id> or anonymous")
        case .userID: .plain
        case .credentialID: FieldDoc("base64url")
        case .clientAddress: .plain
        case .traceID: FieldDoc("The trace id of the request that caused it")
        case .details: .written(["type": "object", "additionalProperties": true])
        }
    }
}

extension AuditEventListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .events: .ref(AuditEvent.self, "Oldest first")
        case .nextCursor: FieldDoc("Pass as cursor for the next page; absent on the last page")
        }
    }
}
