import Foundation

/// The statements behind ``AbuseCounterStore``, for both engines.
extension StoreQueries {
    static let abuseCounterColumns =
        "counter, counter_key, failures, window_start, blocked_until, strikes, last_seen"

    static func abuseCounters(_ keys: [AbuseCounterKey]) -> StoreQuery {
        let matches = Array(repeating: "(counter = ? AND counter_key = ?)", count: keys.count)
        return StoreQuery(
            "SELECT \(abuseCounterColumns) FROM abuse_counters WHERE \(matches.joined(separator: " OR "))",
            keys.flatMap { [StoreQuery.Value.text($0.counter), .text($0.key)] })
    }

    /// One failure in one statement: insert the key, or count on in its window (restarting a
    /// window that has run out), forgetting strikes after a quiet spell.
    static func recordAbuseFailure(_ key: AbuseCounterKey, now: Date, windowCutoff: Date, strikeCutoff: Date)
        -> StoreQuery
    {
        StoreQuery(
            """
            INSERT INTO abuse_counters (\(abuseCounterColumns)) VALUES (?, ?, 1, ?, NULL, 0, ?)
            ON CONFLICT (counter, counter_key) DO UPDATE SET
                failures = CASE WHEN abuse_counters.window_start <= ? THEN 1 ELSE abuse_counters.failures + 1 END,
                window_start = CASE WHEN abuse_counters.window_start <= ? THEN ? ELSE abuse_counters.window_start END,
                strikes = CASE WHEN abuse_counters.last_seen <= ? AND COALESCE(abuse_counters.blocked_until, 0) <= ?
                    THEN 0 ELSE abuse_counters.strikes END,
                last_seen = ?
            RETURNING \(abuseCounterColumns)
            """,
            [
                .text(key.counter), .text(key.key), .date(now), .date(now),
                .date(windowCutoff), .date(windowCutoff), .date(now), .date(strikeCutoff), .date(strikeCutoff),
                .date(now),
            ])
    }

    static func blockAbuseCounter(_ key: AbuseCounterKey, until: Date, failures: Int, now: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE abuse_counters SET blocked_until = ?, strikes = strikes + 1, failures = 0, window_start = ?
            WHERE counter = ? AND counter_key = ? AND failures >= ? RETURNING counter_key
            """,
            [.date(until), .date(now), .text(key.counter), .text(key.key), .integer(Int64(failures))])
    }

    static func deleteAbuseCounter(_ key: AbuseCounterKey) -> StoreQuery {
        StoreQuery(
            "DELETE FROM abuse_counters WHERE counter = ? AND counter_key = ?", [.text(key.counter), .text(key.key)])
    }

    /// A counter idle since `idleBefore`: no failure since, and no block that ended since, so its
    /// strikes, remembered for the longest block after a block ends, are forgotten too.
    static func purgeAbuseCounters(idleBefore: Date) -> StoreQuery {
        StoreQuery(
            "DELETE FROM abuse_counters WHERE last_seen < ? AND (blocked_until IS NULL OR blocked_until < ?)",
            [.date(idleBefore), .date(idleBefore)])
    }
}

extension AbuseCounterRecord {
    init(row: any StoredRow) throws {
        self.init(
            key: AbuseCounterKey(counter: try row.text("counter"), key: try row.text("counter_key")),
            failures: Int(try row.integer("failures")), windowStart: try row.date("window_start"),
            blockedUntil: row.optionalDate("blocked_until"), strikes: Int(try row.integer("strikes")),
            lastSeen: try row.date("last_seen"))
    }
}

extension SQLStore {
    func abuseCounters(_ keys: [AbuseCounterKey]) async throws -> [AbuseCounterRecord] {
        guard !keys.isEmpty else { return [] }
        return try await executor.rows(StoreQueries.abuseCounters(keys)).map { try AbuseCounterRecord(row: $0) }
    }

    func recordAbuseFailure(_ key: AbuseCounterKey, now: Date, window: TimeInterval, strikeMemoryStart: Date)
        async throws -> AbuseCounterRecord
    {
        let query = StoreQueries.recordAbuseFailure(
            key, now: now, windowCutoff: now.addingTimeInterval(-window), strikeCutoff: strikeMemoryStart)
        guard let row = try await executor.rows(query).first else {
            throw StoreError(.unavailable, "the abuse counter just written cannot be read back")
        }
        return try AbuseCounterRecord(row: row)
    }

    func blockAbuseCounter(_ key: AbuseCounterKey, until: Date, ifFailuresAtLeast failures: Int, now: Date)
        async throws -> Bool
    {
        try await !executor.rows(StoreQueries.blockAbuseCounter(key, until: until, failures: failures, now: now))
            .isEmpty
    }

    func deleteAbuseCounter(_ key: AbuseCounterKey) async throws {
        _ = try await executor.rows(StoreQueries.deleteAbuseCounter(key))
    }

    func purgeAbuseCounters(idleBefore: Date) async throws {
        _ = try await executor.rows(StoreQueries.purgeAbuseCounters(idleBefore: idleBefore))
    }
}
