import Foundation
import Logging
import SQLiteNIO

/// Runs statements on one SQLite connection: WAL journal, foreign keys on, full sync, and a
/// busy timeout so a second process waits instead of failing.
final class SQLiteExecutor: SQLExecutor {
    private let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    static func open(path: String, logger: Logger) async throws -> SQLiteExecutor {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let executor = SQLiteExecutor(connection: connection)
        for pragma in [
            "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = FULL",
            "PRAGMA busy_timeout = 5000",
        ] {
            _ = try await executor.rows(StoreQuery(pragma))
        }
        return executor
    }

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        let binds: [SQLiteData] = query.values.map {
            switch $0 {
            case .text(let text): return .text(text)
            case .integer(let integer): return .integer(Int(integer))
            case .null: return .null
            }
        }
        do {
            return try await connection.query(query.sql, binds).map(SQLiteStoredRow.init)
        } catch let error as SQLiteError where Self.isUniquenessViolation(error) {
            throw StoreError(.conflict, "a unique value already exists")
        } catch let error as SQLiteError {
            throw StoreError(.unavailable, "SQLite: \(error.message)")
        }
    }

    static func isUniquenessViolation(_ error: SQLiteError) -> Bool {
        switch error.reason {
        case .constraint, .constraintUniqueFailed, .constraintPrimaryKeyFailed: return true
        default: return false
        }
    }

    func migrate(_ migrations: [[String]]) async throws {
        _ = try await rows(
            StoreQuery(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        )
        let applied = try await rows(StoreQuery("SELECT version FROM schema_migrations")).compactMap {
            $0.optionalInteger("version")
        }
        for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
            // BEGIN IMMEDIATE takes the write lock, so two processes cannot apply a migration twice.
            _ = try await rows(StoreQuery("BEGIN IMMEDIATE"))
            do {
                let again = try await rows(
                    StoreQuery("SELECT version FROM schema_migrations WHERE version = ?", [.integer(Int64(index + 1))]))
                if again.isEmpty {
                    for statement in statements { _ = try await rows(StoreQuery(statement)) }
                    _ = try await rows(
                        StoreQuery(
                            "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                            [.integer(Int64(index + 1)), .date(Date())]))
                }
                _ = try await rows(StoreQuery("COMMIT"))
            } catch {
                _ = try? await rows(StoreQuery("ROLLBACK"))
                throw error
            }
        }
    }

    func close() async throws {
        try await connection.close()
    }
}

/// An SQLite row read by column name.
struct SQLiteStoredRow: StoredRow {
    let row: SQLiteRow

    func optionalText(_ column: String) -> String? {
        guard let data = row.column(column), !data.isNull else { return nil }
        return data.string
    }

    func optionalInteger(_ column: String) -> Int64? {
        guard let data = row.column(column), !data.isNull else { return nil }
        return data.integer.map(Int64.init)
    }
}

/// Opens the embedded SQLite store.
public enum SQLiteStore {
    /// Opens (creating when needed) the SQLite file at `path` and migrates it.
    public static func open(path: String, logger: Logger) async throws -> any UMFAStore {
        let store = SQLStore(executor: try await SQLiteExecutor.open(path: path, logger: logger))
        try await store.migrate()
        return store
    }
}
