import Foundation
import Logging

/// Moves an installation from one store to another (SQLite to PostgreSQL): every table,
/// row by row, in foreign-key order. Rows already in the target are left as they are, so a
/// copy that was interrupted can simply be run again.
package enum StoreCopier {
    /// Tables left behind on purpose: abuse counters describe recent callers of the old
    /// deployment, not its data; console sessions end with it (operators sign in again).
    static let transientTables: Set<String> = ["abuse_counters", "schema_migrations", "console_sessions"]

    /// The tables copied, each after those it references, with their columns: every table of
    /// ``Schema`` but the transient ones.
    static func tables() async throws -> [SchemaCatalog.Table] {
        try await SchemaCatalog.tables().filter { !transientTables.contains($0.name) }
    }

    /// Copies everything from `source` to `target` (both migrated first).
    /// - Returns: the number of rows read from each table.
    package static func copy(from source: any UMFAStore, to target: any UMFAStore) async throws -> [String: Int] {
        guard let source = source as? SQLStore, let target = target as? SQLStore else {
            throw StoreError(.unavailable, "only UMFA's SQL stores can be copied")
        }
        try await source.migrate()
        try await target.migrate()
        var counts: [String: Int] = [:]
        for table in try await tables() {
            let rows = try await source.executor.rows(
                StoreQuery("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"))
            let placeholders = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
            let insert =
                "INSERT INTO \(table.name) (\(table.columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT DO NOTHING"
            for row in rows {
                let values: [StoreQuery.Value] = table.columns.map { column in
                    if table.integerColumns.contains(column) {
                        return row.optionalInteger(column).map { .integer($0) } ?? .null
                    }
                    return row.optionalText(column).map { .text($0) } ?? .null
                }
                _ = try await target.executor.rows(StoreQuery(insert, values))
            }
            counts[table.name] = rows.count
        }
        return counts
    }

    /// Opens a store from a URL: `sqlite:///path/file.sqlite` or `postgres://…`.
    package static func open(url: String, logger: Logger) async throws -> any UMFAStore {
        if url.hasPrefix("sqlite://") {
            return try await SQLiteStore.open(path: String(url.dropFirst("sqlite://".count)), logger: logger)
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return try await PostgresStore.open(url: url, logger: logger)
        }
        throw StoreError(.unavailable, "a database URL is sqlite:///path/file.sqlite or postgres://user:pass@host/db")
    }
}
