import Foundation
import Testing
import UMFAStorage

@Suite("Storage: credentials")
struct CredentialStoreTests {
    @Test("insert, list oldest first, look up within the application", arguments: Engine.allCases)
    func insertListLookUp(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let third = Records.credential(app.id, "alice", createdAt: Records.time(30), deviceName: nil)
            let first = Records.credential(app.id, "alice", createdAt: Records.time(10))
            let second = Records.credential(app.id, "alice", createdAt: Records.time(20))
            let bobs = Records.credential(app.id, "bob", createdAt: Records.time(5))
            for credential in [third, first, bobs, second] { try await store.insertCredential(credential) }

            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == [first, second, third])
            #expect(try await store.credentials(applicationID: app.id, userID: "bob") == [bobs])
            #expect(try await store.credentials(applicationID: app.id, userID: "nobody").isEmpty)
            #expect(try await store.credentials(applicationID: other.id, userID: "alice").isEmpty)
            #expect(try await store.credential(applicationID: app.id, credentialID: third.credentialID) == third)
            #expect(try await store.credential(applicationID: app.id, credentialID: bobs.credentialID) == bobs)
            #expect(try await store.credential(applicationID: other.id, credentialID: first.credentialID) == nil)
            #expect(try await store.credential(applicationID: app.id, credentialID: Records.bytes(32)) == nil)
        }
    }

    @Test("a credential is read with its owner's user handle in one statement", arguments: Engine.allCases)
    func withOwnerHandle(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let alices = Records.credential(app.id, "alice")
            let bobs = Records.credential(app.id, "bob")
            for credential in [alices, bobs] { try await store.insertCredential(credential) }
            for (credential, user) in [(alices, "alice"), (bobs, "bob")] {
                let owner = try #require(try await store.user(applicationID: app.id, userID: user))
                let read = try #require(
                    try await store.credentialWithOwnerHandle(
                        applicationID: app.id, credentialID: credential.credentialID))
                #expect(read.credential == credential)
                #expect(read.ownerHandle == owner.userHandle)
            }
            #expect(
                try await store.credentialWithOwnerHandle(applicationID: other.id, credentialID: alices.credentialID)
                    == nil)
            #expect(
                try await store.credentialWithOwnerHandle(applicationID: app.id, credentialID: Records.bytes(32)) == nil
            )
        }
    }

    @Test("credentials registered in the same millisecond are listed by id bytes", arguments: Engine.allCases)
    func sameMillisecond(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            // Ids whose base64url text sorts differently under a language collation than by bytes.
            let ids: [[UInt8]] = [
                [0xFB, 0xFF], [0x00, 0x01], [0xF8, 0x00], [0x69, 0xB7], [0x04, 0x10], [0x6B, 0xE0],
            ]
            let credentials = ids.map { Records.credential(app.id, "alice", id: $0, createdAt: Records.time(1)) }
            for credential in credentials { try await store.insertCredential(credential) }
            let expected = credentials.sorted { $0.credentialID.lexicographicallyPrecedes($1.credentialID) }
            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == expected)
        }
    }

    @Test("a registered credential id is a conflict; the stored one is kept", arguments: Engine.allCases)
    func conflict(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "mallory"])
            let alices = Records.credential(app.id, "alice")
            try await store.insertCredential(alices)
            var stolen = Records.credential(app.id, "mallory", id: alices.credentialID)
            stolen.signCount = 99
            let error = await #expect(throws: StoreError.self) { try await store.insertCredential(stolen) }
            #expect(error?.code == .conflict)
            #expect(try await store.credential(applicationID: app.id, credentialID: alices.credentialID) == alices)
            #expect(try await store.credentials(applicationID: app.id, userID: "mallory").isEmpty)

            let orphan = await #expect(throws: StoreError.self) {
                try await store.insertCredential(Records.credential(app.id, "nobody"))
            }
            #expect(orphan?.code == .conflict, "a credential of an unknown user")

            let other = try await Records.seed(store)
            let sameIDElsewhere = Records.credential(other.id, "alice", id: alices.credentialID)
            try await store.insertCredential(sameIDElsewhere)
            #expect(
                try await store.credential(applicationID: other.id, credentialID: alices.credentialID)
                    == sameIDElsewhere)
        }
    }

    @Test("a sign-in updates count, backup state, UV and last use, and nothing else", arguments: Engine.allCases)
    func updateUse(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let stored = Records.credential(app.id, "alice", signCount: 7)
            let neighbour = Records.credential(app.id, "alice", signCount: 7)
            try await store.insertCredential(stored)
            try await store.insertCredential(neighbour)

            var used = stored
            used.signCount = 8
            used.backupState = true
            used.uvInitialized = false
            used.lastUsedAt = Records.time(42.123)
            var ignored = used
            ignored.publicKey = Records.bytes(77)
            ignored.userID = "bob"
            ignored.deviceName = "Renamed"
            ignored.transports = ["usb"]
            ignored.createdAt = Records.time(1)
            #expect(try await store.updateCredentialUse(ignored, expectedSignCount: 7))
            #expect(try await store.credential(applicationID: app.id, credentialID: stored.credentialID) == used)
            #expect(
                try await store.credential(applicationID: app.id, credentialID: neighbour.credentialID) == neighbour)
        }
    }

    @Test(
        "two sign-ins checked against one counter value: only the first is recorded",
        arguments: Engine.allCases)
    func signCountCompareAndSet(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let stored = Records.credential(app.id, "alice", signCount: 7)
            try await store.insertCredential(stored)

            var first = stored
            first.signCount = 8
            first.lastUsedAt = Records.time(50)
            var second = stored
            second.signCount = 8
            second.lastUsedAt = Records.time(51)
            #expect(try await store.updateCredentialUse(first, expectedSignCount: 7))
            #expect(
                try await !store.updateCredentialUse(second, expectedSignCount: 7),
                "the counter moved after the second assertion was checked")
            let after = try await store.credential(applicationID: app.id, credentialID: stored.credentialID)
            #expect(after?.signCount == 8)
            #expect(after?.lastUsedAt == Records.time(50), "the refused sign-in changed nothing")

            // Counters that stay 0 (synced passkeys) are not a race: both sign-ins are recorded.
            let synced = Records.credential(app.id, "alice", signCount: 0)
            try await store.insertCredential(synced)
            #expect(try await store.updateCredentialUse(synced, expectedSignCount: 0))
            #expect(try await store.updateCredentialUse(synced, expectedSignCount: 0))

            let gone = Records.credential(app.id, "alice", signCount: 1)
            #expect(try await !store.updateCredentialUse(gone, expectedSignCount: 1), "an unknown credential")
        }
    }

    @Test("a first credential is added only while the user has none", arguments: Engine.allCases)
    func firstCredentialOnly(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let first = Records.credential(app.id, "alice")
            let second = Records.credential(app.id, "alice")
            #expect(try await store.insertFirstCredential(first))
            #expect(try await !store.insertFirstCredential(second))
            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == [first])
        }
    }

    @Test("sign counts up to UInt32.max are stored and read back", arguments: Engine.allCases)
    func largestSignCount(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let top = Records.credential(app.id, "alice", signCount: .max)
            try await store.insertCredential(top)
            #expect(
                try await store.credential(applicationID: app.id, credentialID: top.credentialID)?.signCount == .max)

            var climbing = Records.credential(app.id, "alice", signCount: .max - 1)
            try await store.insertCredential(climbing)
            climbing.signCount = .max
            #expect(try await store.updateCredentialUse(climbing, expectedSignCount: .max - 1))
            #expect(
                try await store.credential(applicationID: app.id, credentialID: climbing.credentialID)?.signCount
                    == .max)
        }
    }

    @Test("delete removes only that user's credential; unknown or someone else's is false", arguments: Engine.allCases)
    func delete(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let phone = Records.credential(app.id, "alice", createdAt: Records.time(1))
            let key = Records.credential(app.id, "alice", createdAt: Records.time(2))
            let bobs = Records.credential(app.id, "bob", createdAt: Records.time(3))
            for credential in [phone, key, bobs] { try await store.insertCredential(credential) }

            #expect(
                try await store.deleteCredential(applicationID: app.id, userID: "bob", credentialID: phone.credentialID)
                    == false, "bob cannot delete alice's credential")
            #expect(
                try await store.deleteCredential(
                    applicationID: UUID(), userID: "alice", credentialID: phone.credentialID)
                    == false)
            #expect(
                try await store.deleteCredential(
                    applicationID: app.id, userID: "alice", credentialID: Records.bytes(32))
                    == false)
            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == [phone, key])

            #expect(
                try await store.deleteCredential(
                    applicationID: app.id, userID: "alice", credentialID: phone.credentialID))
            #expect(
                try await store.deleteCredential(
                    applicationID: app.id, userID: "alice", credentialID: phone.credentialID)
                    == false, "already deleted")
            #expect(try await store.credential(applicationID: app.id, credentialID: phone.credentialID) == nil)
            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == [key])
            #expect(try await store.credentials(applicationID: app.id, userID: "bob") == [bobs])
            #expect(try await store.user(applicationID: app.id, userID: "alice") != nil, "the user stays")
        }
    }
}
