import Foundation
import Logging
import NIOPosix

/// Runs statements on one SQLite connection: WAL journal, foreign keys on, the chosen
/// ``SQLiteDurability``, and a busy timeout so a second process waits instead of failing.
///
/// The connection has a thread of its own, and a query resumes its caller straight from that
/// thread. On the shared thread pool, connections waiting for a lock could occupy every thread,
/// so the one holding the lock could not finish and the others would fail after the busy
/// timeout.
final class SQLiteExecutor: SQLExecutor {
    private let connection: SQLiteConnectionHandle
    private let thread: NIOThreadPool

    private init(connection: SQLiteConnectionHandle, thread: NIOThreadPool) {
        self.connection = connection
        self.thread = thread
    }

    static func open(path: String, durability: SQLiteDurability = .normal, logger: Logger) async throws
        -> SQLiteExecutor
    {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        let connection: SQLiteConnectionHandle
        do {
            connection = try await thread.runIfActive { try SQLiteConnectionHandle(path: path) }
        } catch {
            try? await thread.shutdownGracefully()
            throw error as? StoreError ?? StoreError(.unavailable, "SQLite: cannot open \(path): \(error)")
        }
        logger.debug("opened the SQLite database", metadata: ["path": .string(path)])
        let executor = SQLiteExecutor(connection: connection, thread: thread)
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
        let connection = connection
        return try await withCheckedThrowingContinuation { continuation in
            thread.submit { state in
                guard case .active = state else {
                    return continuation.resume(throwing: StoreError(.unavailable, "SQLite: the connection is closed"))
                }
                continuation.resume(with: Result { try connection.run(query) })
            }
        }
    }

    /// Another connection holds the lock, beyond the busy timeout or where SQLite refuses to
    /// wait (two connections switching a new file to WAL at once would deadlock).
    static let busy = StoreError(.unavailable, "SQLite: the database is locked by another connection")

    /// Runs `body` again, a few times and a little later each time, while the database is busy.
    /// Only for statements that changed nothing when they failed busy: opening and migrating.
    private static func retryingWhenBusy<Value>(_ body: () async throws -> Value) async throws -> Value {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as StoreError where error == busy && attempt < 10 {
                try await Task.sleep(for: .milliseconds(Int64.random(in: 20...60) * Int64(attempt)))
                attempt += 1
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

    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    {
        // BEGIN IMMEDIATE takes the database's write lock, as migrations do; used at start-up,
        // before requests share the connection.
        try await Self.retryingWhenBusy {
            _ = try await rows(StoreQuery("BEGIN IMMEDIATE"))
            do {
                let value = try await body()
                _ = try await rows(StoreQuery("COMMIT"))
                return value
            } catch {
                _ = try? await rows(StoreQuery("ROLLBACK"))
                throw error
            }
        }
    }

    /// Closes the connection on its thread, then stops the thread; runs to the end even when
    /// the calling task is cancelled.
    func close() async throws {
        let connection = connection
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            thread.submit { _ in
                connection.close()
                continuation.resume()
            }
        }
        try? await thread.shutdownGracefully()
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
