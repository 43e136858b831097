import Foundation
import Testing

@testable import UMFAStorage

@Suite("Storage: migrations and stored values")
struct MigrationStoreTests {
    @Test("migrating again is a no-op: data kept, one schema_migrations row per version", arguments: Engine.allCases)
    func migrateTwice(engine: Engine) async throws {
        try await OpenedStores.with(engine) { stores in
            let store = try await stores.open()
            let app = try await Records.seed(store)
            let expected = (1...Schema.migrations.count).map(Int64.init)
            #expect(try await store.migrationVersions() == expected)
            try await store.migrate()
            try await store.migrate()
            #expect(try await store.migrationVersions() == expected)
            #expect(try await store.application(id: app.id) == app)
            try await store.close()

            let reopened = try await stores.open()
            #expect(try await reopened.migrationVersions() == expected)
            #expect(try await reopened.user(applicationID: app.id, userID: "alice") != nil)
        }
    }

    @Test("stores migrating one fresh database at the same time all succeed, once", arguments: Engine.allCases)
    func concurrentMigration(engine: Engine) async throws {
        try await OpenedStores.with(engine) { stores in
            let opened = try await withThrowingTaskGroup(of: (any UMFAStore).self) { group in
                for _ in 0..<4 { group.addTask { try await stores.open() } }
                return try await group.reduce(into: [any UMFAStore]()) { $0.append($1) }
            }
            #expect(opened.count == 4)
            let expected = (1...Schema.migrations.count).map(Int64.init)
            for store in opened { #expect(try await store.migrationVersions() == expected) }
            let app = try await Records.seed(opened[0])
            for store in opened { #expect(try await store.application(id: app.id) == app) }
        }
    }

    @Test("times round-trip to the millisecond", arguments: Engine.allCases)
    func times(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let exact = Records.time(123.456)
            let fine = Date(timeIntervalSince1970: 1_767_225_723.456_4)
            let far = Date(timeIntervalSince1970: 4_102_444_800.999)
            var credential = Records.credential(app.id, "alice", createdAt: fine)
            credential.lastUsedAt = far
            try await store.insertCredential(credential)
            let read = try #require(
                try await store.credential(applicationID: app.id, credentialID: credential.credentialID))
            #expect(milliseconds(read.createdAt) == 1_767_225_723_456)
            #expect(abs(read.createdAt.timeIntervalSince(fine)) < 0.000_5)
            #expect(milliseconds(try #require(read.lastUsedAt)) == 4_102_444_800_999)

            let challenge = ChallengeRecord(
                challenge: Records.bytes(32), applicationID: app.id, userID: nil, ceremony: .authentication,
                userVerification: .preferred, userpwTime: exact, expiresAt: Date(timeIntervalSince1970: 0.001))
            try await store.insertChallenge(challenge)
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
                    == challenge)

            let rounded = Records.application(createdAt: Date(timeIntervalSince1970: 1_767_225_600.000_6))
            try await store.insertApplication(rounded)
            let readApp = try #require(try await store.application(id: rounded.id))
            #expect(milliseconds(readApp.createdAt) == 1_767_225_600_001, "rounded to the nearest millisecond")
        }
    }

    @Test("bytes, lists and optional values round-trip unchanged", arguments: Engine.allCases)
    func values(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            var credential = Records.credential(app.id, "alice", id: [0xFB, 0xFF, 0xBF, 0x00], deviceName: nil)
            credential.publicKey = Array(0...255)
            credential.aaguid = [UInt8](repeating: 0, count: 16)
            credential.transports = []
            credential.attestationFormat = "tpm"
            try await store.insertCredential(credential)
            #expect(
                try await store.credential(applicationID: app.id, credentialID: credential.credentialID) == credential)

            var named = Records.credential(app.id, "alice", id: [], deviceName: "Ünïcode \"quoted\" 'name' ; DROP")
            named.transports = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]
            try await store.insertCredential(named)
            #expect(try await store.credential(applicationID: app.id, credentialID: []) == named)
        }
    }

    private func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
