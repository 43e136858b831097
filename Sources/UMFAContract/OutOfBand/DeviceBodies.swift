/// `POST /api/umfa/approvals/pending`, with a device proof: the approvals waiting for a user.
public struct PendingApprovalsRequest: ContractBody, Equatable {
    /// The application.
    public var applicationID: String
    /// The user whose approvals to list (the device key's credential must be theirs).
    public var userID: String

    /// Creates a request.
    public init(applicationID: String, userID: String) {
        self.applicationID = applicationID
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
    }

    /// An example with every member.
    public static let example = PendingApprovalsRequest(applicationID: Examples.applicationID, userID: "alice")
}

/// One approval waiting for the user: its message and the app link's payload to answer it.
public struct PendingApproval: Codable, Sendable, Equatable {
    /// The transaction.
    public var transactionID: String
    /// The message to show ("" when the backend gave none).
    public var message: String
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// When it expires (RFC 3339).
    public var expiresAt: String
    /// The app link's `dispatchTokenResponse` value (base64url JSON with the dispatch token).
    public var dispatchTokenResponse: String

    /// Creates an entry.
    public init(
        transactionID: String, message: String, createdAt: String, expiresAt: String, dispatchTokenResponse: String
    ) {
        self.transactionID = transactionID
        self.message = message
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.dispatchTokenResponse = dispatchTokenResponse
    }

    enum CodingKeys: String, CodingKey {
        case message, dispatchTokenResponse
        case transactionID = "transaction_id"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }

    static let example = PendingApproval(
        transactionID: "tx_1", message: "Pay 120.00 EUR", createdAt: Examples.time, expiresAt: Examples.time,
        dispatchTokenResponse: "eyJ2ZXJzaW9uIjoxfQ")
}

/// The answer of `POST /api/umfa/approvals/pending`, oldest first.
public struct PendingApprovalsResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The approvals waiting.
    public var approvals: [PendingApproval]

    /// Creates an answer.
    public init(traceID: String, approvals: [PendingApproval]) {
        self.traceID = traceID
        self.approvals = approvals
    }

    enum CodingKeys: String, CodingKey {
        case approvals
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = PendingApprovalsResponse(traceID: Examples.traceID, approvals: [.example])
}

/// The answer of `POST /api/admin/applications/{id}/webhook-secret`: the new secret, shown once.
public struct WebhookSecretResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The secret that signs the application's webhooks from now on (`umfa_whs_…`).
    public var webhookSecret: String

    /// Creates an answer.
    public init(traceID: String, webhookSecret: String) {
        self.traceID = traceID
        self.webhookSecret = webhookSecret
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case webhookSecret = "webhook_secret"
    }

    /// An example with every member.
    public static let example = WebhookSecretResponse(traceID: Examples.traceID, webhookSecret: "umfa_whs_…")
}

/// The body of a webhook delivery (docs/contract.md §7), signed with
/// `UMFA-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body">`.
public struct WebhookEvent: Codable, Sendable, Equatable {
    /// `transaction.created`, `transaction.succeeded`, `transaction.denied`, `transaction.failed`
    /// or `transaction.expired`.
    public var type: String
    /// The transaction.
    public var transactionId: String
    /// Its status after the change.
    public var status: String
    /// The user, once known.
    public var userId: String?
    /// When the change happened (RFC 3339).
    public var occurredAt: String

    /// Creates an event.
    public init(type: String, transactionId: String, status: String, userId: String?, occurredAt: String) {
        self.type = type
        self.transactionId = transactionId
        self.status = status
        self.userId = userId
        self.occurredAt = occurredAt
    }

    enum CodingKeys: String, CodingKey {
        case type, transactionId, status, userId, occurredAt
    }

    /// Encodes every member, `userId` as `null` while the user is not known.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encode(status, forKey: .status)
        try container.encode(userId, forKey: .userId)
        try container.encode(occurredAt, forKey: .occurredAt)
    }
}

/// A webhook event about an account rather than a transaction (docs/contract.md §8):
/// `user.deleted`. It names the user and carries nothing else of theirs.
public struct AccountWebhookEvent: Codable, Sendable, Equatable {
    /// `user.deleted`.
    public var type: String
    /// The user.
    public var userId: String
    /// When it happened (RFC 3339).
    public var occurredAt: String

    /// Creates an event.
    public init(type: String, userId: String, occurredAt: String) {
        self.type = type
        self.userId = userId
        self.occurredAt = occurredAt
    }
}

// MARK: - openapi.yaml

extension PendingApprovalsRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        }
    }
}

extension PendingApproval: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .message: .plain
        case .dispatchTokenResponse:
            FieldDoc("The app link's payload (base64url JSON with a dispatch token), redeemed as if scanned")
        case .transactionID: .plain
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .expiresAt: FieldDoc(nil, .format("date-time"))
        }
    }
}

extension PendingApprovalsResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .approvals: .ref(PendingApproval.self)
        case .traceID: .ref(.echoedTraceID)
        }
    }
}

extension WebhookSecretResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .webhookSecret: FieldDoc("The new secret (umfa_whs_...), shown once")
        }
    }
}
