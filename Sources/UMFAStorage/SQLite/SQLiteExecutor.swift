import Foundation
import Logging
import NIOPosix
import Synchronization

/// Runs statements on one SQLite connection: WAL journal, foreign keys on, the chosen
/// ``SQLiteDurability``, and a busy timeout so a second process waits instead of failing.
///
/// A statement runs on the calling thread when that thread is an event loop (`umfa serve` makes
/// NIO's loops Swift's executor, so request handlers run there), the connection is free, and
/// no other process holds the lock it needs: a statement takes a few microseconds, and handing
/// it to another thread and resuming the caller after it cost more than running it (two thread
/// wake-ups). On Swift's cooperative pool (tools, tests, an embedding app) a statement goes to
/// the connection's thread instead: that pool has a thread per core, and many callers running
/// statements there would hold back every other task. Everything that may wait goes to the
/// connection's own thread too, which resumes its caller from there:
/// - a statement that finds another process's lock waits there under the busy timeout (on the
///   shared thread pool, connections waiting for a lock could occupy every thread, so the one
///   holding the lock could not finish);
/// - with ``SQLiteDurability/full`` every commit syncs the disk, so writes go there;
/// - the WAL checkpoint (its fsync) runs there, never inside a caller's commit;
/// - after ``inlineStreakLimit`` statements in a row on callers' threads, the next goes there,
///   so a long series of statements suspends its task now and then and never holds one of the
///   server's event loops for its whole length.
final class SQLiteExecutor: SQLExecutor {
    /// The connection, used by one thread at a time.
    private let connection: Mutex<SQLiteConnectionHandle>
    private let thread: NIOThreadPool
    /// Whether writes may run on the caller's thread (not with ``SQLiteDurability/full``).
    private let writesInline: Bool
    /// Statements run on callers' threads since one last went to the connection's thread.
    private let inlineStreak = Atomic<Int>(0)
    /// Whether a checkpoint is queued on the connection's thread.
    private let checkpointQueued = Atomic<Bool>(false)
    /// The database file as opened, for the readiness probe (`SQLiteExecutor+Probe.swift`).
    let file: SQLiteFile
    let dialect = SQLDialect.sqlite

    /// Statements in a row on callers' threads before one goes to the connection's thread.
    static let inlineStreakLimit = 8

    private init(
        connection: SQLiteConnectionHandle, thread: NIOThreadPool, durability: SQLiteDurability, file: SQLiteFile
    ) {
        self.connection = Mutex(connection)
        self.file = file
        self.thread = thread
        self.writesInline = durability == .normal
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
        let executor = SQLiteExecutor(
            connection: connection, thread: thread, durability: durability, file: SQLiteFile(path: path))
        do {
            // The handle set the busy timeout: switching to WAL needs a lock another process may hold.
            for pragma in [
                "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON",
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
        if let rows = try rowsOnThisThread(query) { return rows }
        inlineStreak.store(0, ordering: .relaxed)
        let rows: [SQLiteStoredRow] = try await withCheckedThrowingContinuation { continuation in
            thread.submit { [self] state in
                guard case .active = state else {
                    return continuation.resume(throwing: StoreError(.unavailable, "SQLite: the connection is closed"))
                }
                continuation.resume(with: Result { try connection.withLock { try $0.runWaiting(query) } })
            }
        }
        checkpointWhenDue()
        return rows
    }

    /// The statement's rows when it ran on the calling thread; `nil` when it must go to the
    /// connection's thread: not on an event loop, the connection is busy, the streak is long, or it
    /// would wait.
    func rowsOnThisThread(_ query: StoreQuery) throws -> [any StoredRow]? {
        guard MultiThreadedEventLoopGroup.currentEventLoop != nil,
            inlineStreak.load(ordering: .relaxed) < Self.inlineStreakLimit
        else { return nil }
        let writesInline = writesInline
        let attempt = try connection.withLockIfAvailable { try $0.runWithoutWaiting(query, writes: writesInline) }
        guard case .ran(let rows) = attempt else { return nil }
        inlineStreak.add(1, ordering: .relaxed)
        checkpointWhenDue()
        return rows
    }

    /// Queues a checkpoint on the connection's thread once the WAL has grown past
    /// ``SQLiteConnectionHandle/checkpointPages`` (PASSIVE, as SQLite's auto-checkpoint).
    private func checkpointWhenDue() {
        guard connection.withLockIfAvailable({ $0.walPages >= SQLiteConnectionHandle.checkpointPages }) == true,
            checkpointQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        thread.submit { [self] state in
            defer { checkpointQueued.store(false, ordering: .releasing) }
            guard case .active = state else { return }
            connection.withLock { handle in
                if (try? handle.runWaiting(StoreQuery("PRAGMA wal_checkpoint(PASSIVE)"))) != nil {
                    handle.checkpointed()
                }
            }
        }
    }

    /// Another connection holds the lock, beyond the busy timeout or where SQLite refuses to
    /// wait (two connections switching a new file to WAL at once would deadlock).
    static let busy = StoreError(.unavailable, "SQLite: the database is locked by another connection")

    /// How long opening and migrating keep trying while another connection holds the lock:
    /// where SQLite refuses to wait (a new file switched to WAL by two connections at once), a
    /// store opening beside another that is migrating waits for that whole migration, which on
    /// a machine busy with other work takes seconds.
    static let busyRetryLimit: Duration = .seconds(60)

    /// Runs `body` again, a little later each time (at most half a second apart), while the
    /// database is busy, for up to ``busyRetryLimit``. Only for statements that changed nothing
    /// when they failed busy: opening and migrating.
    private static func retryingWhenBusy<Value>(_ body: () async throws -> Value) async throws -> Value {
        let deadline = ContinuousClock.now + busyRetryLimit
        var attempt: Int64 = 1
        while true {
            do {
                return try await body()
            } catch let error as StoreError where error == busy && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(Int64.random(in: 20...50) * min(attempt, 10)))
                attempt += 1
            }
        }
    }

    func migrate(_ migrations: [[String]]) async throws {
        // One transaction that holds the write lock from its start (BEGIN IMMEDIATE), so of two
        // processes starting together one applies the migrations and the other sees them done.
        // It runs start to end on the connection's thread, with no task switch between its
        // statements: the lock is held for SQLite's work alone, never while a statement's task
        // waits for a cooperative thread of a busy machine (four stores opening one file beside
        // a whole test suite waited out the retry limit behind such a migration).
        try await Self.retryingWhenBusy {
            try await onConnectionThread { connection in
                _ = try connection.runWaiting(StoreQuery("BEGIN IMMEDIATE"))
                do {
                    _ = try connection.runWaiting(
                        StoreQuery(
                            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"
                        ))
                    let applied = try connection.runWaiting(StoreQuery("SELECT version FROM schema_migrations"))
                        .compactMap { $0.optionalInteger("version") }
                    for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
                        for statement in statements { _ = try connection.runWaiting(StoreQuery(statement)) }
                        _ = try connection.runWaiting(
                            StoreQuery(
                                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                                [.integer(Int64(index + 1)), .date(Date())]))
                    }
                    _ = try connection.runWaiting(StoreQuery("COMMIT"))
                } catch {
                    _ = try? connection.runWaiting(StoreQuery("ROLLBACK"))
                    throw error
                }
            }
        }
    }

    func atomically(_ steps: [TransactionStep]) async throws -> [[any StoredRow]]? {
        // The whole transaction runs on the connection's thread, as a migration does: the write
        // lock (BEGIN IMMEDIATE, waiting under the busy timeout) is held for SQLite's work alone.
        let results = try await onConnectionThread { connection -> [[SQLiteStoredRow]]? in
            _ = try connection.runWaiting(StoreQuery("BEGIN IMMEDIATE"))
            do {
                var results: [[SQLiteStoredRow]] = []
                for step in steps {
                    let rows = try connection.runWaiting(step.query)
                    if step.needsRow, rows.isEmpty {
                        _ = try connection.runWaiting(StoreQuery("ROLLBACK"))
                        return nil
                    }
                    results.append(rows)
                }
                _ = try connection.runWaiting(StoreQuery("COMMIT"))
                return results
            } catch {
                _ = try? connection.runWaiting(StoreQuery("ROLLBACK"))
                throw error
            }
        }
        inlineStreak.store(0, ordering: .relaxed)
        checkpointWhenDue()
        return results
    }

    /// Runs `body` with the connection on the connection's own thread, at once and whole.
    func onConnectionThread<Value: Sendable>(
        _ body: @escaping @Sendable (inout SQLiteConnectionHandle) throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            thread.submit { [self] state in
                guard case .active = state else {
                    return continuation.resume(throwing: StoreError(.unavailable, "SQLite: the connection is closed"))
                }
                continuation.resume(with: Result { try connection.withLock { try body(&$0) } })
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
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            thread.submit { [self] _ in
                connection.withLock { $0.close() }
                continuation.resume()
            }
        }
        try? await thread.shutdownGracefully()
    }
}

/// Opens the embedded SQLite store.
package enum SQLiteStore {
    /// Opens (creating when needed) the SQLite file at `path` and migrates it.
    ///
    /// - Parameter path: the file, optionally followed by `?synchronous=normal|full`
    ///   (see ``SQLiteDurability``), as in `sqlite:///var/lib/umfa/umfa.sqlite?synchronous=full`.
    package static func open(path: String, logger: Logger) async throws -> any UMFAStore {
        let location = try SQLiteLocation(path)
        // A few at a time per process (SQLiteOpenings): the set-up convoys on SQLite's own locks.
        return try await SQLiteOpenings.shared.run {
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
}
