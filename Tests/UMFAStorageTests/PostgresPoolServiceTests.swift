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
}
