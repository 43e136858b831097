import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Runs statements on PostgreSQL through a connection pool. The shared statements use `?`
/// placeholders; they become `$1, $2, …` here. Migrations take an advisory lock, so several
/// instances starting together migrate once.
///
/// Every failure reaches the caller as a ``StoreError``: while the database is down or
/// restarting, a statement waits at most ``leaseTimeout`` for a connection and then fails
/// with ``StoreError/Code/unavailable``; the pool reconnects by itself once the database is
/// back. A statement that got a connection already closed, and a read that lost its
/// connection, are tried once more on another.
final class PostgresExecutor: SQLExecutor {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let leaseTimeout: Duration

    /// A fixed key for `pg_advisory_lock`, UMFA's migration lock.
    static let migrationLockKey: Int64 = 0x554d_4641_4d49_4752

    init(configuration: PostgresClient.Configuration, leaseTimeout: Duration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        runner = Task { await client.run() }
    }

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        let (postgresQuery, logger) = (Self.postgresQuery(query), logger)
        let run: @Sendable (PostgresConnection) async throws -> [PostgresStoredRow] = { connection in
            try await Self.run(postgresQuery, on: connection, logger: logger).map(PostgresStoredRow.init)
        }
        do {
            do {
                return try await withConnection(run)
            } catch let error where Self.mayRetry(query, after: error) {
                return try await withConnection(run)
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs one statement on a leased connection and collects its rows.
    ///
    /// PostgresNIO hands a statement to the connection's channel without a write promise;
    /// written after the channel closed (the database went away between the lease and the
    /// write), the statement is dropped and its answer never comes, so the caller would wait
    /// forever. On the channel's event loop, with the channel seen active, the write reaches
    /// the connection's handler, which fails the statement properly if the connection closes.
    static func run(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws
        -> [PostgresRandomAccessRow]
    {
        let result = try await connection.eventLoop.flatSubmit { () -> EventLoopFuture<PostgresQueryResult> in
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(ConnectionGone()) }
            return connection.query(query, logger: logger)
        }.get()
        return result.rows.map { $0.makeRandomAccess() }
    }

    /// Leases a connection for `body`, waiting at most ``leaseTimeout`` for one.
    private func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = LeaseRace()
        let (client, timeout) = (client, leaseTimeout)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard lease.claim(.leased) else { throw CancellationError() }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                if lease.claim(.timedOut) {
                    throw StoreError(.unavailable, "PostgreSQL: no connection within \(timeout)")
                }
                return nil
            }
            while let next = try await group.next() {
                if let result = next {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }

    func migrate(_ migrations: [[String]]) async throws {
        let logger = logger
        let lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(Self.migrationLockKey))")
        let unlock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.migrationLockKey))")
        do {
            _ = try await withConnection { connection in
                _ = try await Self.run(lock, on: connection, logger: logger)
                do {
                    try await Self.applyMigrations(migrations, on: connection, logger: logger)
                    _ = try await Self.run(unlock, on: connection, logger: logger)
                } catch {
                    _ = try? await Self.run(unlock, on: connection, logger: logger)
                    throw error
                }
                return true
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    {
        let logger = logger
        let lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(Self.migrationLockKey))")
        let unlock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.migrationLockKey))")
        do {
            return try await withConnection { connection in
                _ = try await Self.run(lock, on: connection, logger: logger)
                do {
                    let value = try await body()
                    _ = try await Self.run(unlock, on: connection, logger: logger)
                    return value
                } catch {
                    _ = try? await Self.run(unlock, on: connection, logger: logger)
                    throw error
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.storeError(error)
        }
    }

    private static func applyMigrations(
        _ migrations: [[String]], on connection: PostgresConnection, logger: Logger
    ) async throws {
        func execute(_ sql: String) async throws -> [PostgresRandomAccessRow] {
            try await run(PostgresQuery(unsafeSQL: sql), on: connection, logger: logger)
        }
        _ = try await execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        let applied = Set(
            try await execute("SELECT version FROM schema_migrations").compactMap {
                PostgresStoredRow(row: $0).optionalInteger("version")
            })
        for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
            _ = try await execute("BEGIN")
            do {
                for statement in statements { _ = try await execute(statement) }
                _ = try await execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(index + 1), \(StoredValue.milliseconds(Date())))"
                )
                _ = try await execute("COMMIT")
            } catch {
                _ = try? await execute("ROLLBACK")
                throw error
            }
        }
    }

    func close() async throws {
        runner.cancel()
        _ = await runner.value
    }

    /// The shared statement with `$n` placeholders and typed bindings.
    static func postgresQuery(_ query: StoreQuery) -> PostgresQuery {
        var sql = ""
        var index = 0
        for character in query.sql {
            if character == "?" {
                index += 1
                sql += "$\(index)"
            } else {
                sql.append(character)
            }
        }
        var bindings = PostgresBindings(capacity: query.values.count)
        for value in query.values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let integer): bindings.append(integer)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// Whether running the statement again on another connection is safe: it never reached
    /// the database, or it only reads and its connection was lost.
    static func mayRetry(_ query: StoreQuery, after error: any Error) -> Bool {
        error is ConnectionGone || (isReadOnly(query) && isLostConnection(error))
    }

    /// Whether a statement only reads, so running it again cannot change anything.
    static func isReadOnly(_ query: StoreQuery) -> Bool {
        query.sql.drop { $0.isWhitespace }.prefix(6).uppercased() == "SELECT"
    }

    /// Whether the statement failed because the connection was gone (a database restart),
    /// not because of the statement.
    static func isLostConnection(_ error: any Error) -> Bool {
        if error is ConnectionGone { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .uncleanShutdown, .connectionError, .clientClosedConnection: return true
        case .server:
            // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08")
        default: return false
        }
    }

    /// The ``StoreError`` for any failure of the driver or the pool. The server's message
    /// (never its detail, which may quote values) goes into the explanation for the log.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] {
                if ["23505", "23503"].contains(state) {
                    return StoreError(.conflict, "a unique value already exists or a referenced row is missing")
                }
                let message = error.serverInfo?[.message] ?? ""
                return StoreError(.unavailable, "PostgreSQL \(state): \(message)")
            }
            return StoreError(.unavailable, "PostgreSQL: \(error.code)")
        default:
            return StoreError(.unavailable, "PostgreSQL: \(String(describing: type(of: error))): \(error)")
        }
    }
}

/// Decides, once, whether a connection lease or its deadline came first.
private final class LeaseRace: Sendable {
    enum Outcome: Int {
        case leased = 1
        case timedOut = 2
    }

    private let state = Atomic<Int>(0)

    /// `true` when `outcome` is the first to claim the race.
    func claim(_ outcome: Outcome) -> Bool {
        state.compareExchange(expected: 0, desired: outcome.rawValue, ordering: .acquiringAndReleasing).exchanged
    }
}

/// The leased connection was closed before the statement could be sent.
private struct ConnectionGone: Error, CustomStringConvertible {
    var description: String { "the connection was closed" }
}

/// A PostgreSQL row read by column name.
struct PostgresStoredRow: StoredRow, Sendable {
    let row: PostgresRandomAccessRow

    func optionalText(_ column: String) -> String? {
        guard row.contains(column) else { return nil }
        return try? row[column].decode(String?.self)
    }

    func optionalInteger(_ column: String) -> Int64? {
        guard row.contains(column) else { return nil }
        if let value = try? row[column].decode(Int64?.self) { return value }
        return (try? row[column].decode(Int32?.self)).flatMap { $0.map(Int64.init) }
    }
}
