import Foundation
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// Instances on one schema migrate one at a time; deployments on separate schemas of one
/// database never wait for each other's migrations.
@Suite("Storage: PostgreSQL migration lock per schema")
struct PostgresMigrationLockTests {
    @Test("while one schema's migration lock is held, a store on another schema opens; one on that schema waits for it")
    func lockPerSchema() async throws {
        let held = try await StoreLocation.make(.postgres)
        let other = try await StoreLocation.make(.postgres)
        let holder = try await TestDatabase.connect()
        let schema = try #require(held.schema)
        // The lock the executor takes for `held`'s schema, taken outside any store.
        _ = try await TestDatabase.rows(
            "SELECT pg_advisory_lock(\(PostgresExecutor.migrationLockClass), hashtext('\(schema)'))", on: holder)

        let waitingOpened = Flag()
        let waiting = Task {
            let store = try await held.open()
            waitingOpened.raise()
            return store
        }
        let otherOpened = Flag()
        let opening = Task {
            let store = try await other.open()
            otherOpened.raise()
            return store
        }
        // With one lock for the whole database this never happens while the lock is held.
        let otherOpenedWhileHeld = await otherOpened.wait(atMost: .seconds(120))
        let waitingOpenedWhileHeld = waitingOpened.isRaised

        _ = try await TestDatabase.rows(
            "SELECT pg_advisory_unlock(\(PostgresExecutor.migrationLockClass), hashtext('\(schema)'))", on: holder)
        try await holder.close()
        let opened = try await [waiting.value, opening.value]
        let versions = try await opened[0].migrationVersions()
        for store in opened { try await store.close() }
        await held.remove()
        await other.remove()

        #expect(otherOpenedWhileHeld, "the other schema's store did not open while this schema's lock was held")
        #expect(!waitingOpenedWhileHeld, "a store opened on a schema whose migration lock was held")
        #expect(versions == Array(1...Int64(Schema.migrations.count)), "the store that waited migrated after the lock")
    }
}
