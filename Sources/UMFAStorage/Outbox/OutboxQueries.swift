import Foundation

/// The outboxes every instance sends from: webhook deliveries (docs/contract.md §7), mail
/// (docs/operators/mail.md) and logout tokens (docs/contract.md §5). Each row waits until it is
/// sent or its attempts run out; an instance claims due rows with a lease, so two never send the
/// same row at once, and a row claimed by an instance that died is sent by another once the
/// lease ends.
enum OutboxTable: String, Sendable {
    case webhooks = "webhook_outbox"
    case mail = "mail_outbox"
    case logout = "logout_outbox"
}

extension StoreQueries {
    /// Claims up to `limit` rows due at `now` by moving their next attempt to `leaseUntil`, in
    /// one statement; the claimed rows.
    static func claimDue(in table: OutboxTable, at now: Date, leaseUntil: Date, limit: Int) -> StoreQuery {
        // The outer condition is checked again on each row as it is locked (PostgreSQL), so of two
        // instances that picked the same ids only the first moves them.
        StoreQuery(
            """
            UPDATE \(table.rawValue) SET next_attempt_at = ?
            WHERE id IN (SELECT id FROM \(table.rawValue) WHERE next_attempt_at <= ?
                         ORDER BY next_attempt_at, id LIMIT ?)
                AND next_attempt_at <= ?
            RETURNING *
            """,
            [.date(leaseUntil), .date(now), .integer(Int64(limit)), .date(now)])
    }

    /// Records a failed attempt of a row still under the lease `claimedUntil` it was claimed
    /// with; after another instance's claim, nothing.
    static func reschedule(
        in table: OutboxTable, id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String
    ) -> StoreQuery {
        StoreQuery(
            """
            UPDATE \(table.rawValue) SET attempts = ?, next_attempt_at = ?, last_error = ?
            WHERE id = ? AND next_attempt_at = ?
            """,
            [.integer(Int64(attempts)), .date(nextAttemptAt), .text(error), .text(id), .date(claimedUntil)])
    }

    /// Removes a row (sent, or given up).
    static func removeFromOutbox(_ table: OutboxTable, id: String) -> StoreQuery {
        StoreQuery("DELETE FROM \(table.rawValue) WHERE id = ?", [.text(id)])
    }
}

extension SQLStore {
    /// ``StoreQueries/claimDue(in:at:leaseUntil:limit:)``, read as `Record`s.
    func claimDue<Record>(
        in table: OutboxTable, at now: Date, leaseUntil: Date, limit: Int, as read: (any StoredRow) throws -> Record
    ) async throws -> [Record] {
        try await executor.rows(StoreQueries.claimDue(in: table, at: now, leaseUntil: leaseUntil, limit: limit))
            .map(read)
    }

    /// ``StoreQueries/reschedule(in:id:claimedUntil:attempts:nextAttemptAt:error:)``.
    func reschedule(
        in table: OutboxTable, id: String, claimedUntil: Date, attempts: Int, nextAttemptAt: Date, error: String
    ) async throws {
        _ = try await executor.rows(
            StoreQueries.reschedule(
                in: table, id: id, claimedUntil: claimedUntil, attempts: attempts, nextAttemptAt: nextAttemptAt,
                error: error))
    }

    /// ``StoreQueries/removeFromOutbox(_:id:)``.
    func removeFromOutbox(_ table: OutboxTable, id: String) async throws {
        _ = try await executor.rows(StoreQueries.removeFromOutbox(table, id: id))
    }
}
