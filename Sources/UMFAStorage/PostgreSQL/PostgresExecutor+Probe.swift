extension PostgresExecutor {
    /// Proves the database answers and takes writes now: a round trip on a pooled connection
    /// (waiting for one at most ``leaseTimeout``), to a server that is not a read-only standby.
    func probe() async throws {
        let rows = try await rows(StoreQuery("SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END AS standby"))
        if rows.first?.optionalInteger("standby") == 1 {
            throw StoreError(.unavailable, "PostgreSQL: the database is a read-only standby")
        }
    }
}
