import Foundation
import Synchronization
import Testing

@testable import UMFAStorage

/// A statement waits for a pool connection at most the lease timeout; the deadline is a timer on
/// an event loop that cancels the lease, never the statement once it has its connection.
@Suite("Storage: PostgreSQL connection leases")
struct PostgresLeaseTests {
    /// An executor with a pool of one connection, and a task holding that connection for
    /// `holding`, returned once the connection is held.
    func oneConnection(leaseTimeout: Duration, holding: Duration) async throws -> (
        PostgresExecutor, Task<Int, any Error>
    ) {
        let location = try await StoreLocation.make(.postgres)
        var configuration = try PostgresStore.configuration(location.address)
        configuration.options.maximumConnections = 1
        configuration.options.minimumConnections = 0
        let executor = PostgresExecutor(
            configuration: configuration, leaseTimeout: leaseTimeout, logger: TestDatabase.logger)
        executor.startStandalone()
        let held = Atomic<Bool>(false)
        // Straight from the pool, without the executor's deadline: only the statement under test
        // has one (a loaded machine may take longer than it to open the first connection).
        let holder = Task {
            try await executor.pool.client().withConnection { _ in
                held.store(true, ordering: .releasing)
                try await Task.sleep(for: holding)
                return 1
            }
        }
        let start = ContinuousClock.now
        while !held.load(ordering: .acquiring) {
            guard ContinuousClock.now - start < .seconds(60) else {
                throw StoreError(.unavailable, "test: no connection in 60 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (executor, holder)
    }

    @Test("with every connection held, a statement fails unavailable at its deadline, and the holder goes on")
    func deadline() async throws {
        let (executor, holder) = try await oneConnection(leaseTimeout: .milliseconds(500), holding: .seconds(5))
        let start = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            _ = try await executor.rows(StoreQuery("SELECT 1 AS one"))
        }
        let waited = ContinuousClock.now - start
        #expect(error?.code == .unavailable)
        #expect(waited >= .milliseconds(450) && waited < .seconds(4), "waited \(waited)")
        // The holder had its connection before its own deadline: the timer never touches it.
        #expect(try await holder.value == 1)
        #expect(try await executor.rows(StoreQuery("SELECT 1 AS one")).count == 1)
        try await executor.close()
    }

    @Test("a statement waiting for a connection stops waiting when its task is cancelled")
    func cancellation() async throws {
        let (executor, holder) = try await oneConnection(leaseTimeout: .seconds(30), holding: .seconds(6))
        let start = ContinuousClock.now
        let waiting = Task { try await executor.rows(StoreQuery("SELECT 1 AS one")).count }
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        await #expect(throws: (any Error).self) { _ = try await waiting.value }
        let waited = ContinuousClock.now - start
        #expect(waited < .seconds(4), "waited \(waited)")
        #expect(try await holder.value == 1)
        try await executor.close()
    }
}
