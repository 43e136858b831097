import Foundation
import NIOCore
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// A statement waits for a pool connection at most the lease timeout; the deadline is a timer on
/// an event loop that cancels the lease, never the statement once it has its connection.
@Suite("Storage: PostgreSQL connection leases")
struct PostgresLeaseTests {
    /// An executor with a pool of one connection, and a task holding that connection until
    /// `release` is raised (or a minute has passed), returned once the connection is held.
    func oneConnection(leaseTimeout: Duration, release: Flag) async throws -> (
        PostgresExecutor, Task<Int, any Error>
    ) {
        let location = try await StoreLocation.make(.postgres)
        var configuration = try PostgresStore.configuration(location.address)
        configuration.maximumConnections = 1
        let executor = PostgresExecutor(
            configuration: configuration, leaseTimeout: leaseTimeout, logger: TestDatabase.logger)
        executor.startStandalone()
        let held = Flag()
        // Straight from the pool, without the executor's deadline: only the statement under test
        // has one (a loaded machine may take longer than it to open the first connection).
        let holder = Task {
            let pool = try await executor.pool.pool(
                until: .now() + .seconds(60), timeout: StoreError(.unavailable, "test: no pool"))
            let connection = try await pool.lease(
                until: .now() + .seconds(60), timeout: StoreError(.unavailable, "test: no connection"))
            held.raise()
            await release.wait(atMost: .seconds(60))
            pool.release(connection)
            return 1
        }
        guard await held.wait(atMost: .seconds(60)) else {
            throw StoreError(.unavailable, "test: no connection in 60 s")
        }
        return (executor, holder)
    }

    @Test("with every connection held, a statement fails unavailable at its deadline, and the holder goes on")
    func deadline() async throws {
        // The connection is held until the statement has failed (or for a minute, when its
        // deadline does not work: the statement then gets the connection, and the test fails).
        let release = Flag()
        let (executor, holder) = try await oneConnection(leaseTimeout: .milliseconds(500), release: release)
        let start = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            _ = try await executor.rows(StoreQuery("SELECT 1 AS one"))
        }
        let waited = ContinuousClock.now - start
        release.raise()
        #expect(error?.code == .unavailable)
        #expect(waited >= .milliseconds(450), "failed before its deadline: \(waited)")
        // The holder had its connection before its own deadline: the timer never touches it.
        #expect(try await holder.value == 1)
        #expect(try await executor.rows(StoreQuery("SELECT 1 AS one")).count == 1)
        try await executor.close()
    }

    @Test("a statement waiting for a connection stops waiting when its task is cancelled")
    func cancellation() async throws {
        // The connection is held until the waiting statement has ended, and its lease timeout
        // is longer than that hold: only the cancellation can end its wait with an error.
        let release = Flag()
        let (executor, holder) = try await oneConnection(leaseTimeout: .seconds(120), release: release)
        let waiting = Task { try await executor.rows(StoreQuery("SELECT 1 AS one")).count }
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        await #expect(throws: (any Error).self) { _ = try await waiting.value }
        release.raise()
        #expect(try await holder.value == 1)
        try await executor.close()
    }

    @Test("a connection returned closed is forgotten, and the statement waiting for one opens a fresh one")
    func closedConnectionFreesItsPlace() async throws {
        let location = try await StoreLocation.make(.postgres)
        var configuration = try PostgresStore.configuration(location.address)
        configuration.maximumConnections = 1
        // A lease timeout far beyond the test: only the freed place can end the wait in time.
        let executor = PostgresExecutor(
            configuration: configuration, leaseTimeout: .seconds(120), logger: TestDatabase.logger)
        executor.startStandalone()
        let pool = try await executor.pool.pool(
            until: .now() + .seconds(60), timeout: StoreError(.unavailable, "test: no pool"))
        let held = try await pool.lease(
            until: .now() + .seconds(60), timeout: StoreError(.unavailable, "test: no connection"))
        let heldBackend = try await TestDatabase.rows("SELECT pg_backend_pid()::BIGINT AS pid", on: held)
            .first?["pid"].decode(Int64.self)
        let waiting = Task {
            try await executor.rows(StoreQuery("SELECT pg_backend_pid()::BIGINT AS pid")).first?.optionalInteger("pid")
        }
        try await Task.sleep(for: .milliseconds(200))
        try await held.close()
        pool.release(held)
        let backend = try await waiting.value
        #expect(backend != nil && backend != heldBackend)
        try await executor.close()
    }

    @Test("a database that refuses the connection fails the statement at once with the refusal, never waited for")
    func refusalIsNotWaitedFor() async throws {
        let location = try await StoreLocation.make(.postgres)
        var address = try #require(URLComponents(string: location.address))
        address.path = "/umfa_no_such_database"
        let executor = PostgresExecutor(
            configuration: try PostgresStore.configuration(try #require(address.string)), leaseTimeout: .seconds(120),
            logger: TestDatabase.logger)
        executor.startStandalone()
        let error = await #expect(throws: StoreError.self) {
            _ = try await executor.rows(StoreQuery("SELECT 1 AS one"))
        }
        // 3D000 invalid_catalog_name, from the server, not the lease's deadline.
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("3D000") == true, "\(String(describing: error))")
        try await executor.close()
    }
}
