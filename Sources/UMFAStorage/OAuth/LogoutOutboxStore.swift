import Foundation

/// One logout token waiting for its client (OpenID Connect Back-Channel Logout 1.0 §2.5): the
/// signed token, where it goes, how many attempts failed and when the next is due. A row leaves
/// the outbox when the client answers 2xx, or when the attempts run out.
package struct LogoutDeliveryRecord: Sendable, Equatable {
    /// The token's `jti`.
    package var id: String
    package var applicationID: UUID
    /// The client the token is for (its `aud`).
    package var clientID: String
    /// The client's `backchannel_logout_uri` when the session ended.
    package var uri: String
    /// The logout token (a signed JWT, no secret of anyone's).
    package var body: String
    package var attempts: Int
    /// When the next attempt is due (or, while one runs, when its lease ends).
    package var nextAttemptAt: Date
    package var createdAt: Date
    package var lastError: String?
    /// The `traceparent` of the request that queued it, so its delivery continues that trace
    /// (docs/operators/tracing.md); `nil` when the server did not trace.
    package var traceParent: String?

    /// Creates a record; `traceParent` is the current span's unless given.
    package init(
        id: String, applicationID: UUID, clientID: String, uri: String, body: String, attempts: Int = 0,
        nextAttemptAt: Date, createdAt: Date, lastError: String? = nil, traceParent: String? = TraceParent.current()
    ) {
        self.traceParent = traceParent
        self.id = id
        self.applicationID = applicationID
        self.clientID = clientID
        self.uri = uri
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.lastError = lastError
    }
}

/// Back-channel logout's storage: the clients that took part in a sign-in (grants of kind
/// ``OAuthGrantKind/logoutParticipant``), taken once when it ends, and the outbox of their
/// logout tokens, shared by every instance.
package protocol LogoutOutboxStore: Sendable {
    /// Consumes and returns the live participants of the session `sessionID`, or (with `sessionID`
    /// `nil`) of the user `subject`'s sign-ins, those of the passkey `credentialID` only when it is
    /// given. Of concurrent callers, on any instance, each participant goes to exactly one.
    func takeLogoutParticipants(
        applicationID: UUID, sessionID: String?, subject: String?, credentialID: [UInt8]?, at now: Date
    ) async throws -> [OAuthGrantRecord]
    /// Adds deliveries, all or none.
    func enqueueLogoutTokens(_ deliveries: [LogoutDeliveryRecord]) async throws
    /// Claims up to `limit` due deliveries for this instance by moving their next attempt to
    /// `leaseUntil` in one statement.
    func claimDueLogoutTokens(at now: Date, leaseUntil: Date, limit: Int) async throws -> [LogoutDeliveryRecord]
    /// Removes a delivery (delivered, or given up).
    func deleteLogoutToken(id: String) async throws
    /// Records a failed attempt of a delivery still under the lease `claimedUntil`.
    func rescheduleLogoutToken(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
}

extension StoreQueries {
    static func takeLogoutParticipants(
        applicationID: UUID, sessionID: String?, subject: String?, credentialID: [UInt8]?, at now: Date
    ) -> StoreQuery {
        var condition: (sql: String, values: [StoreQuery.Value])
        if let sessionID {
            condition = ("application_id = ? AND family = ?", [.uuid(applicationID), .text(sessionID)])
        } else {
            condition = ownerCondition(applicationID: applicationID, subject: subject ?? "", credentialID: credentialID)
        }
        return StoreQuery(
            """
            UPDATE oauth_grants SET consumed_at = ?
            WHERE kind = ? AND \(condition.sql) AND consumed_at IS NULL AND expires_at > ?
            RETURNING \(oauthGrantColumns)
            """,
            [.date(now), .text(OAuthGrantKind.logoutParticipant.rawValue)] + condition.values + [.date(now)])
    }

    static func enqueueLogoutToken(_ d: LogoutDeliveryRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO logout_outbox (id, application_id, client_id, uri, body, attempts, next_attempt_at, created_at,
                last_error, trace_parent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(d.id), .uuid(d.applicationID), .text(d.clientID), .text(d.uri), .text(d.body),
                .integer(Int64(d.attempts)), .date(d.nextAttemptAt), .date(d.createdAt),
                d.lastError.map { .text($0) } ?? .null, d.traceParent.map { .text($0) } ?? .null,
            ])
    }
}

extension LogoutDeliveryRecord {
    init(row: any StoredRow) throws {
        self.init(
            id: try row.text("id"), applicationID: try row.uuid("application_id"), clientID: try row.text("client_id"),
            uri: try row.text("uri"), body: try row.text("body"), attempts: Int(try row.integer("attempts")),
            nextAttemptAt: try row.date("next_attempt_at"), createdAt: try row.date("created_at"),
            lastError: row.optionalText("last_error"), traceParent: row.optionalText("trace_parent"))
    }
}

extension SQLStore {
    func takeLogoutParticipants(
        applicationID: UUID, sessionID: String?, subject: String?, credentialID: [UInt8]?, at now: Date
    ) async throws -> [OAuthGrantRecord] {
        try await executor.rows(
            StoreQueries.takeLogoutParticipants(
                applicationID: applicationID, sessionID: sessionID, subject: subject, credentialID: credentialID,
                at: now)
        ).map(OAuthGrantRecord.init(row:))
    }

    func enqueueLogoutTokens(_ deliveries: [LogoutDeliveryRecord]) async throws {
        guard !deliveries.isEmpty else { return }
        // All or none: a session's clients are taken once, so a half-written batch would lose some.
        _ = try await executor.atomically(
            deliveries.map { TransactionStep(query: StoreQueries.enqueueLogoutToken($0)) })
    }

    func claimDueLogoutTokens(at now: Date, leaseUntil: Date, limit: Int) async throws -> [LogoutDeliveryRecord] {
        try await claimDue(
            in: .logout, at: now, leaseUntil: leaseUntil, limit: limit, as: LogoutDeliveryRecord.init(row:))
    }

    func deleteLogoutToken(id: String) async throws {
        try await removeFromOutbox(.logout, id: id)
    }

    func rescheduleLogoutToken(id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String)
        async throws
    {
        try await reschedule(
            in: .logout, id: id, claimedUntil: claimedUntil, attempts: attempts, nextAttemptAt: nextAttemptAt,
            error: error)
    }
}
