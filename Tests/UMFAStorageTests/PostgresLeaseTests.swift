import Foundation
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
        configuration.options.maximumConnections = 1
        configuration.options.minimumConnections = 0
        let executor = PostgresExecutor(
            configuration: configuration, leaseTimeout: leaseTimeout, logger: TestDatabase.logger)
        executor.startStandalone()
        let held = Flag()
        // Straight from the pool, without the executor's deadline: only the statement under test
        // has one (a loaded machine may take longer than it to open the first connection).
        let holder = Task {
            try await executor.pool.client().withConnection { _ in
                held.raise()
                await release.wait(atMost: .seconds(60))
                return 1
            }
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
}
