import Foundation
import Testing

@testable import UMFAStorage

/// Migration 2 on a database that was created at version 1: rows written before it keep their
/// data and read with the defaults (policy `any`, no AAGUID lists, no authenticator name).
@Suite("Storage: upgrading a version 1 database")
struct AttestationMigrationStoreTests {
    /// An executor on `location` that has applied only the first migration.
    func versionOneExecutor(_ location: StoreLocation) async throws -> any SQLExecutor {
        let executor: any SQLExecutor
        switch location.engine {
        case .sqlite:
            executor = try await SQLiteExecutor.open(path: location.address, logger: TestDatabase.logger)
        case .postgres:
            let postgres = PostgresExecutor(
                configuration: try PostgresStore.configuration(location.address),
                leaseTimeout: try PostgresStore.connectTimeout(location.address), logger: TestDatabase.logger)
            postgres.startStandalone()
            executor = postgres
        }
        try await executor.migrate([Schema.migrations[0]])
        return executor
    }

    @Test("version 1 rows survive migration 2 and read with the defaults", arguments: Engine.allCases)
    func upgrade(engine: Engine) async throws {
        let location = try await StoreLocation.make(engine)
        do {
            try await upgrade(location)
        } catch {
            await location.remove()
            throw error
        }
        await location.remove()
    }

    func upgrade(_ location: StoreLocation) async throws {
        let app = UUID()
        let old = try await versionOneExecutor(location)
        _ = try await old.rows(
            StoreQuery(
                """
                INSERT INTO applications (id, name, rp_id, rp_name, origins, enrollment_policy, user_verification,
                    attestation, token_ttl_seconds, created_at)
                    VALUES ('\(app.uuidString.lowercased())', 'Old shop', 'example.com', 'Old shop',
                    '["https://app.example.com"]', 'grant', 'preferred', 'direct', 300, 0)
                """))
        _ = try await old.rows(
            StoreQuery(
                """
                INSERT INTO users (application_id, user_id, user_handle, display_name, created_at)
                    VALUES ('\(app.uuidString.lowercased())', 'alice', 'AAEC', 'Alice', 0)
                """))
        _ = try await old.rows(
            StoreQuery(
                """
                INSERT INTO credentials (application_id, credential_id, user_id, public_key, sign_count, aaguid,
                    transports, backup_eligible, backup_state, uv_initialized, attestation_format, device_name,
                    created_at, last_used_at)
                    VALUES ('\(app.uuidString.lowercased())', 'AQID', 'alice', 'BAUG', 7, 'AAAAAAAAAAAAAAAAAAAAAA',
                    '[]', 0, 0, 1, 'packed', NULL, 0, NULL)
                """))
        try await old.close()

        let store = try await location.open()
        let application = try #require(try await store.application(id: app))
        #expect(application.name == "Old shop" && application.attestation == .direct)
        #expect(application.attestationPolicy == .any)
        #expect(application.aaguidAllow == nil && application.aaguidDeny.isEmpty)
        let credentials = try await store.credentials(applicationID: app, userID: "alice")
        #expect(credentials.count == 1 && credentials.first?.signCount == 7)
        #expect(credentials.first?.authenticatorName == nil)
        #expect(try await store.migrationVersions() == Array(1...Int64(Schema.migrations.count)))
        try await store.close()
    }
}
