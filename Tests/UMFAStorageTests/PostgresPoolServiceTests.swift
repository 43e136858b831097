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

    /// The attack: a pool that closes idle connections starts a timer for each connection that
    /// comes back from a statement, and each held memory for a minute after its cancellation,
    /// so the server's memory followed its request rate.
    @Test("the server's pool opens all its connections at start and keeps them while statements come and go")
    func servedPoolIsFixed() async throws {
        let location = try await StoreLocation.make(.postgres)
        let name = "umfa-fixed-" + String(UUID().uuidString.prefix(8)).lowercased()
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
        // The start-up pool's session ends with its work.
        for _ in 0..<100 where try await !sessions().isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try await sessions().isEmpty)
        let group = ServiceGroup(
            configuration: .init(
                services: [try #require(served.pool)], gracefulShutdownSignals: [], logger: TestDatabase.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // No statement has run on the service's pool yet: all three open by themselves.
            var opened: [Date] = []
            for _ in 0..<100 where opened.count != 3 {
                try await Task.sleep(for: .milliseconds(100))
                opened = try await sessions()
            }
            #expect(opened.count == 3)
            for _ in 0..<50 { _ = try await store.applications() }
            try await Task.sleep(for: .milliseconds(200))
            // The same three sessions, none closed and none opened.
            #expect(try await sessions() == opened)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await store.close()
    }
}
