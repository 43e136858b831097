import Foundation
import Logging
import SQLiteNIO

/// Runs statements on one SQLite connection: WAL journal, foreign keys on, the chosen
/// ``SQLiteDurability``, and a busy timeout so a second process waits instead of failing.
///
/// The connection has a thread of its own. On the shared thread pool, connections waiting for
/// a lock could occupy every thread, so the one holding the lock could not finish and the
/// others would fail after the busy timeout.
final class SQLiteExecutor: SQLExecutor {
    private let connection: SQLiteConnection
    private let threadPool: NIOThreadPool

    private init(connection: SQLiteConnection, threadPool: NIOThreadPool) {
        self.connection = connection
        self.threadPool = threadPool
    }

    static func open(path: String, durability: SQLiteDurability = .normal, logger: Logger) async throws
        -> SQLiteExecutor
    {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threadPool, logger: logger,
                on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            try? await threadPool.shutdownGracefully()
            throw StoreError(.unavailable, "SQLite: cannot open \(path): \(error)")
        }
        let executor = SQLiteExecutor(connection: connection, threadPool: threadPool)
        do {
            // The busy timeout first: switching to WAL needs a lock another process may hold.
            for pragma in [
                "PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON",
                "PRAGMA synchronous = \(durability.pragmaValue)",
            ] {
                try await retryingWhenBusy { _ = try await executor.rows(StoreQuery(pragma)) }
            }
        } catch {
            try? await executor.close()
            throw error
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
        } catch let error as SQLiteError where Self.isConflict(error) {
            throw StoreError(.conflict, "a unique value already exists or a referenced row is missing")
        } catch let error as SQLiteError where Self.isBusy(error) {
            throw Self.busy
        } catch let error as SQLiteError {
            throw StoreError(.unavailable, "SQLite: \(error.message)")
        } catch {
            throw StoreError(.unavailable, "SQLite: \(String(describing: type(of: error))): \(error)")
        }
    }

    /// Uniqueness and foreign-key violations, which PostgreSQL reports as 23505 and 23503: the
    /// same ``StoreError/Code/conflict`` on both engines.
    static func isConflict(_ error: SQLiteError) -> Bool {
        switch error.reason {
        case .constraint, .constraintUniqueFailed, .constraintPrimaryKeyFailed, .constraintForeignKeyFailed,
            .constraintUniqueRowIDFailed:
            return true
        default: return false
        }
    }

    /// Another connection holds the lock, beyond the busy timeout or where SQLite refuses to
    /// wait (two connections switching a new file to WAL at once would deadlock).
    static let busy = StoreError(.unavailable, "SQLite: the database is locked by another connection")

    static func isBusy(_ error: SQLiteError) -> Bool {
        switch error.reason {
        case .busy, .busyTimeout, .busyInRecovery, .busyInSnapshot, .locked: return true
        default: return false
        }
    }

    /// Runs `body` again, a few times and a little later each time, while the database is busy.
    /// Only for statements that changed nothing when they failed busy: opening and migrating.
    private static func retryingWhenBusy(_ body: () async throws -> Void) async throws {
        for attempt in 1... {
            do {
                return try await body()
            } catch let error as StoreError where error == busy && attempt < 10 {
                try await Task.sleep(for: .milliseconds(Int64.random(in: 20...60) * Int64(attempt)))
            }
        }
    }

    func migrate(_ migrations: [[String]]) async throws {
        // One transaction that holds the write lock from its start (BEGIN IMMEDIATE), so of two
        // processes starting together one applies the migrations and the other sees them done.
        try await Self.retryingWhenBusy {
            _ = try await rows(StoreQuery("BEGIN IMMEDIATE"))
            do {
                _ = try await rows(
                    StoreQuery(
                        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"
                    ))
                let applied = try await rows(StoreQuery("SELECT version FROM schema_migrations")).compactMap {
                    $0.optionalInteger("version")
                }
                for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
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

    /// Closes even when the calling task is cancelled (the async `close()` of SQLiteNIO then
    /// does nothing, and the connection traps when it is released unclosed).
    func close() async throws {
        defer { threadPool.shutdownGracefully { _ in } }
        try await connection.close().get()
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
    ///
    /// - Parameter path: the file, optionally followed by `?synchronous=normal|full`
    ///   (see ``SQLiteDurability``), as in `sqlite:///var/lib/umfa/umfa.sqlite?synchronous=full`.
    public static func open(path: String, logger: Logger) async throws -> any UMFAStore {
        let location = try SQLiteLocation(path)
        let executor = try await SQLiteExecutor.open(
            path: location.file, durability: location.durability, logger: logger)
        let store = SQLStore(executor: executor)
        do {
            try await store.migrate()
        } catch {
            try? await executor.close()
            throw error
        }
        return store
    }
}
