import Foundation
import Testing
import UMFAStorage

@Suite("Storage: applications, API keys, users")
struct ApplicationStoreTests {
    @Test("applications: insert, look up, update, list oldest first, duplicate id refused", arguments: Engine.allCases)
    func applications(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            #expect(try await store.applications().isEmpty)
            let newer = Records.application(name: "Newer", createdAt: Records.time(20))
            let older = Records.application(name: "Older", createdAt: Records.time(10), policy: .open)
            try await store.insertApplication(newer)
            try await store.insertApplication(older)
            #expect(try await store.application(id: newer.id) == newer)
            #expect(try await store.application(id: older.id) == older)
            #expect(try await store.application(id: UUID()) == nil)
            #expect(try await store.applications() == [older, newer])

            var changed = newer
            changed.name = "Renamed"
            changed.rpID = "login.example.com"
            changed.rpName = "Renamed shop"
            changed.origins = ["https://login.example.com", "android:apk-key-hash:abc-_DEF"]
            changed.enrollmentPolicy = .open
            changed.userVerification = .required
            changed.attestation = .direct
            changed.tokenTTLSeconds = 3600
            try await store.updateApplication(changed)
            #expect(try await store.application(id: newer.id) == changed)
            #expect(try await store.application(id: older.id) == older, "another application changed")

            var duplicate = Records.application(id: older.id, name: "Duplicate")
            duplicate.createdAt = Records.time(30)
            let error = await #expect(throws: StoreError.self) { try await store.insertApplication(duplicate) }
            #expect(error?.code == .conflict)
            #expect(try await store.application(id: older.id) == older)
        }
    }

    @Test("applications created in the same millisecond are listed by id", arguments: Engine.allCases)
    func applicationTies(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let apps = (0..<6).map { _ in Records.application(createdAt: Records.time(5)) }
            for app in apps { try await store.insertApplication(app) }
            let expected = apps.sorted { $0.id.uuidString.lowercased() < $1.id.uuidString.lowercased() }
            #expect(try await store.applications() == expected)
        }
    }

    @Test("API keys: found by hash, several per application, unknown hash nil", arguments: Engine.allCases)
    func apiKeys(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let shop = Records.application()
            let bank = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(shop)
            try await store.insertApplication(bank)
            let (first, second, banks) = (Records.bytes(32), Records.bytes(32), Records.bytes(32))
            try await store.insertAPIKey(hash: first, applicationID: shop.id, createdAt: Records.time(1))
            try await store.insertAPIKey(hash: second, applicationID: shop.id, createdAt: Records.time(2))
            try await store.insertAPIKey(hash: banks, applicationID: bank.id, createdAt: Records.time(3))
            #expect(try await store.application(forAPIKeyHash: first)?.id == shop.id)
            #expect(try await store.application(forAPIKeyHash: second)?.id == shop.id)
            #expect(try await store.application(forAPIKeyHash: banks)?.id == bank.id)
            #expect(try await store.application(forAPIKeyHash: Records.bytes(32))?.id == nil)
            #expect(try await store.application(forAPIKeyHash: Array(first.dropLast())) == nil)

            let reused = await #expect(throws: StoreError.self) {
                try await store.insertAPIKey(hash: first, applicationID: bank.id, createdAt: Records.time(4))
            }
            #expect(reused?.code == .conflict)
            #expect(try await store.application(forAPIKeyHash: first)?.id == shop.id)
            let orphan = await #expect(throws: StoreError.self) {
                try await store.insertAPIKey(hash: Records.bytes(32), applicationID: UUID(), createdAt: Records.time(4))
            }
            #expect(orphan?.code == .conflict, "a key for an unknown application")
        }
    }

    @Test("users: insert is idempotent and returns the stored user; found by id and handle", arguments: Engine.allCases)
    func users(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = Records.application()
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(app)
            try await store.insertApplication(other)
            let alice = Records.user(app.id, "alice", createdAt: Records.time(3))
            #expect(try await store.insertUser(alice) == alice)

            var again = Records.user(app.id, "alice", createdAt: Records.time(9))
            again.displayName = "Someone else"
            #expect(try await store.insertUser(again) == alice, "the existing user comes back unchanged")
            #expect(try await store.user(applicationID: app.id, userID: "alice") == alice)
            #expect(try await store.user(applicationID: app.id, userHandle: alice.userHandle) == alice)
            #expect(try await store.user(applicationID: app.id, userHandle: again.userHandle) == nil)

            let otherAlice = Records.user(other.id, "alice")
            #expect(try await store.insertUser(otherAlice) == otherAlice, "user ids are per application")
            #expect(try await store.user(applicationID: other.id, userID: "alice") == otherAlice)
            #expect(try await store.user(applicationID: other.id, userHandle: alice.userHandle) == nil)
            #expect(try await store.user(applicationID: app.id, userID: "bob") == nil)

            let unicode = Records.user(app.id, "Zoë 🔑 " + String(repeating: "x", count: 240))
            #expect(try await store.insertUser(unicode) == unicode)
            #expect(try await store.user(applicationID: app.id, userID: unicode.userID) == unicode)
            #expect(try await store.user(applicationID: app.id, userID: "zoë 🔑 ") == nil)
        }
    }

    @Test("20 concurrent inserts of one new user all return the same stored user", arguments: Engine.allCases)
    func concurrentUserInsert(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: [])
            let results = try await withThrowingTaskGroup(of: UserRecord.self) { group in
                for _ in 0..<20 { group.addTask { try await store.insertUser(Records.user(app.id, "carol")) } }
                return try await group.reduce(into: [UserRecord]()) { $0.append($1) }
            }
            let stored = try #require(try await store.user(applicationID: app.id, userID: "carol"))
            #expect(results.count == 20)
            #expect(results.allSatisfy { $0 == stored })
        }
    }
}
