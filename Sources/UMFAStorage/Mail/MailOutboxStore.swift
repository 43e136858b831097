import Foundation

/// One message waiting in the mail outbox (docs/operators/mail.md): its recipient, the message
/// sealed with the master key, how many attempts failed and when the next is due.
package struct MailDeliveryRecord: Sendable, Equatable {
    /// The message's id (its `Message-ID` too), the same on every attempt.
    package var id: String
    /// The application the mail is sent for.
    package var applicationID: UUID
    /// The user it concerns, when one does: their pending mail goes with their account.
    package var userID: String?
    /// The address it goes to.
    package var recipient: String
    /// The whole message (headers and body), sealed.
    package var sealedMessage: [UInt8]
    /// Attempts that failed so far.
    package var attempts: Int
    /// When the next attempt is due (or, while one runs, when its lease ends).
    package var nextAttemptAt: Date
    /// When it was queued.
    package var createdAt: Date
    /// Why the last attempt failed.
    package var lastError: String?
    /// The `traceparent` of the request that queued it, so its delivery continues that trace
    /// (docs/operators/tracing.md); `nil` when the server did not trace.
    package var traceParent: String?

    /// Creates a record; `traceParent` is the current span's unless given.
    package init(
        id: String, applicationID: UUID, userID: String?, recipient: String, sealedMessage: [UInt8],
        attempts: Int = 0, nextAttemptAt: Date, createdAt: Date, lastError: String? = nil,
        traceParent: String? = TraceParent.current()
    ) {
        self.traceParent = traceParent
        self.id = id
        self.applicationID = applicationID
        self.userID = userID
        self.recipient = recipient
        self.sealedMessage = sealedMessage
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.lastError = lastError
    }
}

/// The mail outbox, shared by every instance (``OutboxTable``).
package protocol MailOutboxStore: Sendable {
    /// Adds a message.
    func enqueueMail(_ delivery: MailDeliveryRecord) async throws
    /// Claims up to `limit` due messages for this instance until `leaseUntil`, in one statement.
    func claimDueMail(at now: Date, leaseUntil: Date, limit: Int) async throws -> [MailDeliveryRecord]
    /// Removes a message (sent, or given up).
    func deleteMail(id: String) async throws
    /// Records a failed attempt and when to try again, while the row is still under the lease
    /// this instance claimed it with (`claimedUntil`).
    func rescheduleMail(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
    /// How many messages wait, for every application.
    func pendingMailCount() async throws -> Int
}

extension StoreQueries {
    static func enqueueMail(_ d: MailDeliveryRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO mail_outbox (id, application_id, user_id, recipient, sealed_message, attempts, next_attempt_at,
                created_at, last_error, trace_parent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(d.id), .uuid(d.applicationID), d.userID.map { .text($0) } ?? .null, .text(d.recipient),
                .bytes(d.sealedMessage), .integer(Int64(d.attempts)), .date(d.nextAttemptAt), .date(d.createdAt),
                d.lastError.map { .text($0) } ?? .null, d.traceParent.map { .text($0) } ?? .null,
            ])
    }
}

extension MailDeliveryRecord {
    init(row: any StoredRow) throws {
        self.init(
            id: try row.text("id"), applicationID: try row.uuid("application_id"), userID: row.optionalText("user_id"),
            recipient: try row.text("recipient"), sealedMessage: try row.bytes("sealed_message"),
            attempts: Int(try row.integer("attempts")), nextAttemptAt: try row.date("next_attempt_at"),
            createdAt: try row.date("created_at"), lastError: row.optionalText("last_error"),
            traceParent: row.optionalText("trace_parent"))
    }
}

extension SQLStore {
    func enqueueMail(_ delivery: MailDeliveryRecord) async throws {
        _ = try await executor.rows(StoreQueries.enqueueMail(delivery))
    }

    func claimDueMail(at now: Date, leaseUntil: Date, limit: Int) async throws -> [MailDeliveryRecord] {
        try await claimDue(in: .mail, at: now, leaseUntil: leaseUntil, limit: limit, as: MailDeliveryRecord.init(row:))
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func deleteMail(id: String) async throws {
        try await removeFromOutbox(.mail, id: id)
    }

    func rescheduleMail(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
    {
        try await reschedule(
            in: .mail, id: id, claimedUntil: claimedUntil, attempts: attempts, nextAttemptAt: nextAttemptAt,
            error: error)
    }

    func pendingMailCount() async throws -> Int {
        Int(try await executor.rows(StoreQuery("SELECT COUNT(*) AS n FROM mail_outbox")).first?.integer("n") ?? 0)
    }
}
