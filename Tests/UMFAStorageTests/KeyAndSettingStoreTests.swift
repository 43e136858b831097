import Foundation
import Testing
import UMFAStorage

@Suite("Storage: signing keys and settings")
struct KeyAndSettingStoreTests {
    @Test("a new signing key retires the current one; newest first; retired times kept", arguments: Engine.allCases)
    func rotation(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            #expect(try await store.signingKeys().isEmpty)
            let first = Records.signingKey("k1", createdAt: Records.time(1))
            try await store.insertSigningKey(first, retiringOthersAt: Records.time(1))
            #expect(try await store.signingKeys() == [first])

            let second = Records.signingKey("k2", createdAt: Records.time(100))
            try await store.insertSigningKey(second, retiringOthersAt: Records.time(100.5))
            var firstRetired = first
            firstRetired.retiredAt = Records.time(100.5)
            #expect(try await store.signingKeys() == [second, firstRetired])

            let third = Records.signingKey("k3", createdAt: Records.time(200))
            try await store.insertSigningKey(third, retiringOthersAt: Records.time(200))
            var secondRetired = second
            secondRetired.retiredAt = Records.time(200)
            #expect(try await store.signingKeys() == [third, secondRetired, firstRetired])

            let clash = Records.signingKey("k3", createdAt: Records.time(300))
            let error = await #expect(throws: StoreError.self) {
                try await store.insertSigningKey(clash, retiringOthersAt: Records.time(300))
            }
            #expect(error?.code == .conflict)
            #expect(try await store.signingKeys() == [third, secondRetired, firstRetired], "nothing was retired")
        }
    }

    @Test("a key rotated in late by another instance does not retire a newer key", arguments: Engine.allCases)
    func lateRotation(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let newer = Records.signingKey("newer", createdAt: Records.time(20))
            let older = Records.signingKey("older", createdAt: Records.time(10))
            try await store.insertSigningKey(newer, retiringOthersAt: Records.time(20))
            try await store.insertSigningKey(older, retiringOthersAt: Records.time(21))
            var olderRetired = older
            olderRetired.retiredAt = Records.time(21)
            #expect(try await store.signingKeys() == [newer, olderRetired])
        }
    }

    @Test("two instances rotating at once leave one current key, the newest", arguments: Engine.allCases)
    func concurrentRotation(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            try await store.insertSigningKey(
                Records.signingKey("k0", createdAt: Records.time(0)), retiringOthersAt: Records.time(0))
            let keys = (1...8).map { Records.signingKey("k\($0)", createdAt: Records.time(Double($0))) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for key in keys.shuffled() {
                    group.addTask { try await store.insertSigningKey(key, retiringOthersAt: Records.time(50)) }
                }
                try await group.waitForAll()
            }
            let stored = try await store.signingKeys()
            #expect(stored.map(\.kid) == ["k8", "k7", "k6", "k5", "k4", "k3", "k2", "k1", "k0"])
            #expect(stored.filter { $0.retiredAt == nil }.map(\.kid) == ["k8"])
        }
    }

    @Test(
        "settings: absent is nil; insert-if-absent keeps the first value; delete removes one",
        arguments: Engine.allCases)
    func settings(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { (store: any UMFAStore) async throws in
            #expect(try await store.setting("server_secret") == nil)
            #expect(try await store.insertSettingIfAbsent("server_secret", value: "first") == "first")
            #expect(try await store.insertSettingIfAbsent("server_secret", value: "second") == "first")
            #expect(try await store.setting("server_secret") == "first")
            #expect(try await store.insertSettingIfAbsent("admin_token_hash", value: "hash") == "hash")
            #expect(try await store.setting("admin_token_hash") == "hash")
            #expect(try await store.setting("Server_Secret") == nil)
            try await store.deleteSetting("admin_token_hash")
            try await store.deleteSetting("admin_token_hash")
            #expect(try await store.setting("admin_token_hash") == nil)
            #expect(try await store.setting("server_secret") == "first")
            #expect(try await store.insertSettingIfAbsent("admin_token_hash", value: "new") == "new")
        }
    }

    @Test("20 instances starting at once agree on one setting value", arguments: Engine.allCases)
    func concurrentSetting(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let values = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.insertSettingIfAbsent("server_secret", value: "value-\(index)") }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            let stored = try #require(try await store.setting("server_secret"))
            #expect(values == [stored])
        }
    }

    @Test(
        "instances starting together on a fresh database create exactly one first signing key",
        arguments: Engine.allCases)
    func firstSigningKeyOnce(engine: Engine) async throws {
        try await OpenedStores.with(engine) { stores in
            var opened: [any UMFAStore] = []
            for _ in 0..<4 { opened.append(try await stores.open()) }
            let made = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, store) in opened.enumerated() {
                    group.addTask {
                        try await store.insertFirstSigningKey(algorithm: "RS256") {
                            Records.signingKey("first-\(index)", createdAt: Records.time(Double(index)))
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(made.filter { $0 }.count == 1, "\(made)")
            #expect(try await opened[0].signingKeys().count == 1)
            #expect(
                try await !opened[1].insertFirstSigningKey(algorithm: "RS256") {
                    Records.signingKey("late", createdAt: Records.time(9))
                })
            #expect(
                try await opened[2].insertFirstSigningKey(algorithm: "ES256") {
                    Records.signingKey("first-es256", createdAt: Records.time(10), algorithm: "ES256")
                }, "another algorithm's first key is made beside it")
            let kids = try await opened[0].signingKeys().map(\.kid)
            #expect(kids.count == 2 && kids.first == "first-es256" && kids.last?.hasPrefix("first-") == true, "\(kids)")
        }
    }

    @Test("a new key retires the current key of its own algorithm only", arguments: Engine.allCases)
    func rotationPerAlgorithm(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let rsa = Records.signingKey("rsa-1", createdAt: Records.time(1))
            let ec = Records.signingKey("ec-1", createdAt: Records.time(2), algorithm: "ES256")
            let ed = Records.signingKey("ed-1", createdAt: Records.time(3), algorithm: "EdDSA")
            for key in [rsa, ec, ed] { try await store.insertSigningKey(key, retiringOthersAt: key.createdAt) }
            #expect(try await store.signingKeys().filter { $0.retiredAt == nil }.count == 3)

            let ec2 = Records.signingKey("ec-2", createdAt: Records.time(10), algorithm: "ES256")
            try await store.insertSigningKey(ec2, retiringOthersAt: Records.time(10))
            let current = try await store.signingKeys().filter { $0.retiredAt == nil }.map(\.kid)
            #expect(Set(current) == ["rsa-1", "ec-2", "ed-1"])
        }
    }
}
