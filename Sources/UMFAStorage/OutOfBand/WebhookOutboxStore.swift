import Foundation

/// One webhook delivery waiting in the outbox (docs/contract.md §7): the exact body to POST, how many
/// attempts failed, and when the next is due. A row leaves the outbox when its receiver
/// answers 2xx, or when the attempts run out.
package struct WebhookDeliveryRecord: Sendable, Equatable {
    /// The event's id (`UMFA-Webhook-Id`), the same on every attempt, so receivers can drop
    /// a repeat.
    package var id: String
    /// The application whose webhook receives it.
    package var applicationID: UUID
    /// The JSON body, signed as it is.
    package var body: String
    /// Attempts that failed so far.
    package var attempts: Int
    /// When the next attempt is due (or, while one runs, when its lease ends).
    package var nextAttemptAt: Date
    /// When the event happened.
    package var createdAt: Date
    /// Why the last attempt failed.
    package var lastError: String?
    /// Where it goes instead of the application's webhook (a CIBA ping: its endpoint and bearer
    /// token), sealed with the master key; `nil` for the webhook.
    package var sealedTarget: [UInt8]?
    /// The `traceparent` of the request that queued it, so its delivery continues that trace
    /// (docs/operators/tracing.md); `nil` when the server did not trace.
    package var traceParent: String?

    /// Creates a record; `traceParent` is the current span's unless given.
    package init(
        id: String, applicationID: UUID, body: String, attempts: Int = 0, nextAttemptAt: Date, createdAt: Date,
        lastError: String? = nil, sealedTarget: [UInt8]? = nil, traceParent: String? = TraceParent.current()
    ) {
        self.traceParent = traceParent
        self.id = id
        self.applicationID = applicationID
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.lastError = lastError
        self.sealedTarget = sealedTarget
    }
}

/// The webhook outbox, shared by every instance.
package protocol WebhookOutboxStore: Sendable {
    /// Adds a delivery.
    func enqueueWebhook(_ delivery: WebhookDeliveryRecord) async throws
    /// Claims up to `limit` due deliveries for this instance by moving their next attempt to
    /// `leaseUntil` in one statement, so two instances never send the same row at once.
    func claimDueWebhooks(at now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDeliveryRecord]
    /// Removes a delivery (delivered, or given up).
    func deleteWebhook(id: String) async throws
    /// Records a failed attempt and when to try again, while the row is still under the lease
    /// this instance claimed it with (`claimedUntil`); after another instance's claim, nothing.
    func rescheduleWebhook(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
    /// Deliveries still waiting for an application's webhook (not CIBA pings), oldest first.
    func pendingWebhooks(applicationID: UUID) async throws -> [WebhookDeliveryRecord]
}

extension StoreQueries {
    static func enqueueWebhook(_ d: WebhookDeliveryRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO webhook_outbox (id, application_id, body, attempts, next_attempt_at, created_at, last_error,
                sealed_target, trace_parent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(d.id), .uuid(d.applicationID), .text(d.body), .integer(Int64(d.attempts)),
                .date(d.nextAttemptAt), .date(d.createdAt), d.lastError.map { .text($0) } ?? .null,
                d.sealedTarget.map { .bytes($0) } ?? .null, d.traceParent.map { .text($0) } ?? .null,
            ])
    }
}

extension WebhookDeliveryRecord {
    init(row: any StoredRow) throws {
        self.init(
            id: try row.text("id"), applicationID: try row.uuid("application_id"), body: try row.text("body"),
            attempts: Int(try row.integer("attempts")), nextAttemptAt: try row.date("next_attempt_at"),
            createdAt: try row.date("created_at"), lastError: row.optionalText("last_error"),
            sealedTarget: try row.optionalText("sealed_target").map { try StoredValue.bytes($0) },
            traceParent: row.optionalText("trace_parent"))
    }
}

extension SQLStore {
    func enqueueWebhook(_ delivery: WebhookDeliveryRecord) async throws {
        _ = try await executor.rows(StoreQueries.enqueueWebhook(delivery))
    }

    func claimDueWebhooks(at now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await claimDue(
            in: .webhooks, at: now, leaseUntil: leaseUntil, limit: limit, as: WebhookDeliveryRecord.init(row:)
        )
        .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func deleteWebhook(id: String) async throws {
        try await removeFromOutbox(.webhooks, id: id)
    }

    func rescheduleWebhook(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
    {
        try await reschedule(
            in: .webhooks, id: id, claimedUntil: claimedUntil, attempts: attempts, nextAttemptAt: nextAttemptAt,
            error: error)
    }

    func pendingWebhooks(applicationID: UUID) async throws -> [WebhookDeliveryRecord] {
        try await executor.rows(
            StoreQuery(
                """
                SELECT * FROM webhook_outbox WHERE application_id = ? AND sealed_target IS NULL
                ORDER BY created_at, id
                """,
                [.uuid(applicationID)])
        ).map(WebhookDeliveryRecord.init(row:))
    }
}
