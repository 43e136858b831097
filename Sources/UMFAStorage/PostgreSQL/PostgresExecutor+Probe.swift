extension PostgresExecutor {
    /// Proves the database answers and takes writes now: a round trip on a pooled connection
    /// (waiting for one at most ``leaseTimeout``), to a server whose transactions may write (not
    /// a standby, not `default_transaction_read_only`).
    func probe() async throws {
        let rows = try await rows(
            StoreQuery(
                "SELECT CASE WHEN current_setting('transaction_read_only') = 'on' THEN 1 ELSE 0 END AS read_only"))
        if rows.first?.optionalInteger("read_only") == 1 {
            throw StoreError(.unavailable, "PostgreSQL: the database takes no writes (a standby, or read-only)")
        }
    }

    /// Commits one write with `synchronous_commit` on (a URL may turn it off): its commit waits
    /// for the WAL to be flushed up to it, so every commit before it is on disk too. (A
    /// transaction that changes no row commits without waiting: this one writes a row and
    /// removes it.)
    func makeCommitsDurable() async throws {
        let name = StoreQuery.Value.text("umfa_durability_mark")
        _ = try await atomically([
            TransactionStep(query: StoreQuery("SET LOCAL synchronous_commit TO on")),
            TransactionStep(
                query: StoreQuery(
                    "INSERT INTO settings (name, value) VALUES (?, '') ON CONFLICT (name) DO UPDATE SET value = ''",
                    [name])),
            TransactionStep(query: StoreQuery("DELETE FROM settings WHERE name = ?", [name])),
        ])
    }
}
