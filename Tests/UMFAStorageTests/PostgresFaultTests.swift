import Foundation
import Synchronization
import Testing
import UMFATestSupport

@testable import UMFAStorage

@Suite("Storage: PostgreSQL faults")
struct PostgresFaultTests {
    @Test("an unreachable database fails open with unavailable, at the connect timeout's deadline")
    func unreachable() async throws {
        _ = try TestDatabase.baseURL()
        let error = await #expect(throws: StoreError.self) {
            _ = try await PostgresStore.open(
                url: "postgres://postgres@127.0.0.1:1/umfa?connect_timeout=1", logger: TestDatabase.logger)
        }
        #expect(error?.code == .unavailable, "\(String(describing: error))")
        // The lease deadline of connect_timeout ended the wait, not the pool's own 60 s before it
        // gives up on an unreachable database (which fails with PostgresNIO's error instead).
        #expect(error?.message == "PostgreSQL: no connection within 1.0 seconds", "\(String(describing: error))")
    }

    @Test("connections cut under a store: reads retry, writes fail cleanly, then everything works")
    func connectionsCut() async throws {
        try await StoreLocation.withStore(.postgres) { store in
            let app = try await Records.seed(store)
            var backends = Set<Int64>()
            for _ in 0..<5 {
                let rows = try await store.rawRows("SELECT pg_backend_pid()::BIGINT AS pid")
                backends.formUnion(rows.compactMap { $0.optionalInteger("pid") })
            }
            #expect(!backends.isEmpty)
            for pid in backends { try await TestDatabase.execute("SELECT pg_terminate_backend(\(pid))") }
            try await Task.sleep(for: .milliseconds(200))

            #expect(try await store.application(id: app.id) == app, "a read is tried again on a fresh connection")
            for attempt in 0..<3 {
                do {
                    _ = try await store.insertUser(Records.user(app.id, "user-\(attempt)"))
                } catch let error as StoreError {
                    #expect(error.code == .unavailable)
                }
            }
            #expect(try await store.insertUser(Records.user(app.id, "after")).userID == "after")
        }
    }

    @Test("the database crashes and restarts under load: clean failures, recovery, no acknowledged write lost")
    func restartUnderLoad() async throws {
        let cluster = try await PrivateCluster.start()
        let load = LoadRecord()
        do {
            // The private cluster has just started on a machine busy with the rest of the suite:
            // its first connections may take longer than the store's lease timeout, when opening
            // (migrating) as when seeding. Set-up, not the behaviour under test.
            let store = try await whileUnavailable {
                try await PostgresStore.open(url: cluster.url, logger: TestDatabase.logger)
            }
            let app = try await whileUnavailable { try await Records.seed(store, users: []) }
            async let writers: Void = withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask { await load.write(store: store, app: app.id, writer: writer) }
                }
            }
            do {
                try await load.waitForSuccesses(10, within: .seconds(60))
                try await cluster.crash()
                let probe = await #expect(throws: StoreError.self) { _ = try await store.application(id: app.id) }
                #expect(probe?.code == .unavailable, "\(String(describing: probe))")
                try await cluster.startServer()
                try await load.waitForSuccesses(load.successes + 20, within: .seconds(90))
            } catch {
                load.stop()
                await writers
                throw error
            }
            load.stop()
            await writers

            let summary = load.summary
            #expect(
                summary.otherErrors.isEmpty, "failures that were not StoreError.unavailable: \(summary.otherErrors)")
            for user in summary.acknowledged {
                let stored = try await whileUnavailable { try await store.user(applicationID: app.id, userID: user) }
                #expect(stored != nil, "\(user) was lost")
            }
            try await store.close()
        } catch {
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }
}

/// Runs `body` again while it fails with ``StoreError/Code/unavailable``, for at most `limit`:
/// set-up and final checks of a fault test, where a slow machine is not the behaviour under test.
private func whileUnavailable<Result>(
    within limit: Duration = .seconds(180), _ body: () async throws -> Result
) async throws -> Result {
    let deadline = ContinuousClock.now + limit
    while true {
        do {
            return try await body()
        } catch let error as StoreError where error.code == .unavailable && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// What the writers saw during the restart test.
private final class LoadRecord: Sendable {
    struct Summary: Sendable {
        var acknowledged: [String] = []
        var unavailable = 0
        var otherErrors: [String] = []
        var stopped = false
    }

    private let state = Mutex(Summary())

    var summary: Summary { state.withLock { $0 } }
    var successes: Int { state.withLock { $0.acknowledged.count } }

    func stop() { state.withLock { $0.stopped = true } }

    func write(store: any UMFAStore, app: UUID, writer: Int) async {
        var index = 0
        while !state.withLock({ $0.stopped }) {
            index += 1
            let userID = "w\(writer)-\(index)"
            do {
                _ = try await store.insertUser(Records.user(app, userID))
                state.withLock { $0.acknowledged.append(userID) }
            } catch let error as StoreError where error.code == .unavailable {
                state.withLock { $0.unavailable += 1 }
                try? await Task.sleep(for: .milliseconds(50))
            } catch {
                state.withLock { $0.otherErrors.append("\(error)") }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    func waitForSuccesses(_ count: Int, within limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while successes < count {
            guard ContinuousClock.now < deadline else {
                let summary = self.summary
                throw FixtureFailure(
                    "only \(summary.acknowledged.count) of \(count) writes succeeded in time; "
                        + "\(summary.unavailable) unavailable, other errors: \(summary.otherErrors.prefix(3))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
