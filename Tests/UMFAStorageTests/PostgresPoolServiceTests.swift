import Foundation
import ServiceLifecycle
import Testing

@testable import UMFAStorage

/// The PostgreSQL pool as the server runs it: start-up work on a pool of its own, then the pool
/// as a `Service` in a service group; nothing runs before either.
@Suite("Storage: the PostgreSQL pool as a service")
struct PostgresPoolServiceTests {
    @Test("a served store migrates and works in its start-up pool, then while its service runs")
    func served() async throws {
        try await OpenedStores.with(.postgres) { opened in try await served(opened.location) }
    }

    func served(_ location: StoreLocation) async throws {
        let served = try PostgresStore.served(url: location.address, logger: TestDatabase.logger)
        let store = served.store
        let pool = try #require(served.pool)
        #expect(try await served.starting { try await store.applications().count } == 0)

        let group = ServiceGroup(
            configuration: .init(services: [pool], gracefulShutdownSignals: [], logger: TestDatabase.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            // Asked between the two pools: it waits for the service's.
            tasks.addTask { _ = try await store.applications() }
            tasks.addTask { try await group.run() }
            try await tasks.next()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        try await store.close()
        let error = await #expect(throws: StoreError.self) { try await store.applications() }
        #expect(error?.code == .unavailable)
    }

    /// UMFA's own pool (`LoopConnectionPool`) keeps no minimum: a quiet server holds no session
    /// (a PostgreSQL restart under load: Tests/Interop/test_postgres_instances.py).
    @Test("the server's pool opens connections as statements need them, at most pool_size, and closes idle ones")
    func servedPoolOpensOnDemand() async throws {
        let location = try await StoreLocation.make(.postgres)
        let name = "umfa-demand-" + String(UUID().uuidString.prefix(8)).lowercased()
        let url = TestDatabase.url(
            TestDatabase.url(location.address, adding: "pool_size", "3"), adding: "application_name", name)
        let served = try PostgresStore.served(url: url, logger: TestDatabase.logger)
        let store = served.store
        _ = try await served.starting { try await store.applications() }
        let sessions = {
            try await TestDatabase.rows(
                "SELECT backend_start FROM pg_stat_activity WHERE application_name = '\(name)' ORDER BY backend_start"
            ).map { try $0["backend_start"].decode(Date.self) }
        }
        /// Waits, within a minute, for the sessions to be gone (a busy machine is slow to close).
        let allClosed = {
            let deadline = ContinuousClock.now + .seconds(60)
            while try await !sessions().isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            return try await sessions().isEmpty
        }
        // The start-up pool's session ends with its work.
        #expect(try await allClosed())
        let executor = try #require(served.pool as? PostgresExecutor)
        let group = ServiceGroup(
            configuration: .init(services: [executor], gracefulShutdownSignals: [], logger: TestDatabase.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Nothing opens before a statement needs it.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await sessions().isEmpty)
            // Twelve statements at once, each holding its connection for a moment: never more
            // than pool_size sessions.
            try await withThrowingTaskGroup(of: Void.self) { statements in
                for _ in 0..<12 {
                    statements.addTask { _ = try await executor.rows(StoreQuery("SELECT pg_sleep(0.2)")) }
                }
                try await statements.waitForAll()
            }
            let opened = try await sessions()
            #expect((1...3).contains(opened.count))
            // Statements one after another reuse them: no session closed and none opened.
            for _ in 0..<20 { _ = try await store.applications() }
            #expect(Set(try await sessions()).isSubset(of: Set(opened)))
            // Idle ones close after PostgresConnectionSettings.idleConnectionLifetime.
            #expect(try await allClosed())
            _ = try await store.applications()
            #expect(try await sessions().count == 1)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await store.close()
    }
}
