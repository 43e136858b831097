import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Runs statements on PostgreSQL through a connection pool. The shared statements use `?`
/// placeholders; they become `$1, $2, …` here (``postgresQuery(_:)``). Migrations take an
/// advisory lock, so several instances starting together migrate once
/// (`PostgresExecutor+Migrations.swift`).
///
/// The pool runs only while something runs it (`PostgresExecutor+Pool.swift`): the server's
/// service group, through the executor's ``run()`` as a `Service`; start-up work before that,
/// inside ``withPool(_:)``; tools and tests, through ``startStandalone()`` until ``close()``.
/// Creating an executor starts nothing.
///
/// Every failure reaches the caller as a ``StoreError`` (`PostgresErrors.swift`): while the
/// database is down or restarting, or no pool is running yet, a statement waits at most
/// ``leaseTimeout`` for a connection and then fails with ``StoreError/Code/unavailable``; the
/// pool reconnects by itself once the database is back. A statement that got a connection
/// already closed, and a read that lost its connection, are tried once more on another.
final class PostgresExecutor: SQLExecutor {
    let configuration: PostgresPoolConfiguration
    let logger: Logger
    let leaseTimeout: Duration
    /// The running pool statements lease connections from.
    let pool = PoolSlot()
    /// The task running the pool for ``startStandalone()``; `nil` under a service group.
    let standaloneRunner = Mutex<Task<Void, Never>?>(nil)
    let dialect = SQLDialect.postgresql

    init(configuration: PostgresPoolConfiguration, leaseTimeout: Duration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.leaseTimeout = leaseTimeout
    }

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        let (postgresQuery, logger) = (Self.postgresQuery(query), logger)
        let write = !Self.isReadOnly(query)
        let run = { (connection: PostgresConnection) async throws -> [PostgresStoredRow] in
            do {
                let rows =
                    write
                    ? try await Self.committed(postgresQuery, on: connection, logger: logger)
                    : try await Self.run(postgresQuery, on: connection, logger: logger)
                return rows.map(PostgresStoredRow.init)
            } catch {
                // A backend that was ended (a restart, `pg_terminate_backend`) reports it before
                // its socket closes; closed here, the connection is not leased again meanwhile,
                // so the statement's retry, or the next one, gets a live connection.
                if Self.isLostConnection(error), !connection.isClosed { try? await connection.close() }
                throw error
            }
        }
        var retries = 0
        while true {
            do {
                return try await withConnection(run)
            } catch let error where retries < Self.retriesOnLostConnection && Self.mayRetry(query, after: error) {
                retries += 1
            } catch {
                throw Self.storeError(error)
            }
        }
    }

    /// `BEGIN`, the steps, `COMMIT` on one leased connection. The answer to `COMMIT` comes once
    /// PostgreSQL has committed, so it is the commit's proof; a connection lost before it is an
    /// ``UnconfirmedWrite`` (the transaction may have committed), never tried again.
    func atomically(_ steps: [TransactionStep]) async throws -> [[any StoredRow]]? {
        let logger = logger
        let queries = steps.map { (Self.postgresQuery($0.query), $0.needsRow) }
        do {
            return try await withConnection { connection -> [[PostgresStoredRow]]? in
                func execute(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
                    try await Self.run(query, on: connection, logger: logger)
                }
                do {
                    _ = try await execute(PostgresQuery(unsafeSQL: "BEGIN"))
                    var results: [[PostgresStoredRow]] = []
                    for (query, needsRow) in queries {
                        let rows = try await execute(query)
                        if needsRow, rows.isEmpty {
                            _ = try await execute(PostgresQuery(unsafeSQL: "ROLLBACK"))
                            return nil
                        }
                        results.append(rows.map(PostgresStoredRow.init))
                    }
                    do {
                        _ = try await execute(PostgresQuery(unsafeSQL: "COMMIT"))
                    } catch  where Self.isLostConnection(error) {
                        throw UnconfirmedWrite(cause: String(describing: type(of: error)))
                    }
                    return results
                } catch {
                    if Self.isLostConnection(error) || error is UnconfirmedWrite {
                        if !connection.isClosed { try? await connection.close() }
                    } else {
                        _ = try? await execute(PostgresQuery(unsafeSQL: "ROLLBACK"))
                    }
                    throw error
                }
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// How often a statement that may be sent again (``mayRetry(_:after:)``) is, when the
    /// connection it was given is gone: a restart ends every connection of the pool at once.
    static let retriesOnLostConnection = 2

    /// Runs one statement on a leased connection and collects its rows.
    ///
    /// PostgresNIO hands a statement to the connection's channel without a write promise;
    /// written after the channel closed (the database went away between the lease and the
    /// write), the statement is dropped and its answer never comes, so the caller would wait
    /// forever. On the channel's event loop, with the channel seen active, the write reaches
    /// the connection's handler, which fails the statement properly if the connection closes.
    /// A task already on that loop (``LoopPools``) sends it at once, without a hop.
    static func run(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws
        -> [PostgresRandomAccessRow]
    {
        let send: @Sendable () -> EventLoopFuture<PostgresQueryResult> = {
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(ConnectionGone()) }
            return connection.query(query, logger: logger)
        }
        let loop = connection.eventLoop
        let result = try await (loop.inEventLoop ? send() : loop.flatSubmit(send)).get()
        return result.rows.map { $0.makeRandomAccess() }
    }

    /// Runs a write and answers only once PostgreSQL has committed it. In the extended query
    /// protocol PostgreSQL reports a statement complete (and PostgresNIO hands back its rows)
    /// before the statement's implicit transaction commits at `Sync`; `ReadyForQuery` follows
    /// the commit. PostgresNIO sends nothing more on a connection until that `ReadyForQuery`
    /// has come, so the answer to an empty query sent next is the proof of the commit: two
    /// round trips, where `BEGIN` … `COMMIT` took three.
    ///
    /// A commit that fails after the statement completed (or a connection lost before the
    /// proof) fails the proof, so the caller is never told of a write that was not committed.
    /// Such a write may have committed all the same, so the failure is ``UnconfirmedWrite``,
    /// which is never tried again; a failed statement rolls back by itself.
    static func committed(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws
        -> [PostgresRandomAccessRow]
    {
        let rows = try await run(query, on: connection, logger: logger)
        do {
            _ = try await run(PostgresQuery(unsafeSQL: ""), on: connection, logger: logger)
        } catch {
            throw UnconfirmedWrite(cause: String(describing: type(of: error)))
        }
        return rows
    }

    /// Leases a connection for `body`, waiting at most ``leaseTimeout`` for one (and for a
    /// running pool, between start-up and the service group). The deadline is a timer on an
    /// event loop, armed only while the lease waits; cancelling the task ends the wait.
    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let timeout = leaseTimeout
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let expired = { StoreError(.unavailable, "PostgreSQL: no connection within \(timeout)") }
        let pool = try await pool.pool(until: deadline, timeout: expired())
        let connection = try await pool.lease(until: deadline, timeout: expired())
        do {
            let result = try await body(connection)
            pool.release(connection)
            return result
        } catch {
            pool.release(connection)
            throw error
        }
    }
}

/// The leased connection was closed before the statement could be sent.
struct ConnectionGone: Error, CustomStringConvertible {
    var description: String { "the connection was closed" }
}

/// A write completed but its commit could not be confirmed (see
/// ``PostgresExecutor/committed(_:on:logger:)``): it may or may not have committed.
struct UnconfirmedWrite: Error, CustomStringConvertible {
    let cause: String
    var description: String { "the write's commit could not be confirmed (\(cause))" }
}
