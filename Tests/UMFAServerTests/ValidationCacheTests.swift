import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAStorage

@testable import UMFAServer

/// validate-token's short memory (``ValidationCache``): what it keeps, what clears it, and the
/// bound on what another instance's deletion leaves unseen.
@Suite("Validation cache")
struct ValidationCacheTests {
    /// Counts the reads a lookup falls through to.
    final class Reads: Sendable {
        private let count = Mutex(0)
        var total: Int { count.withLock { $0 } }
        func read<Value>(_ value: Value?) -> Value? {
            count.withLock { $0 += 1 }
            return value
        }
    }

    static let key = ValidationCache.CredentialKey(applicationID: UUID(), credentialID: [1, 2, 3])

    @Test("an existing owner is read once within the lifetime, then again after it")
    func lifetime() async throws {
        let clock = TestClock()
        let cache = ValidationCache(lifetime: 5, now: { clock.now })
        let reads = Reads()
        for _ in 0..<3 {
            #expect(try await cache.owner(of: Self.key) { reads.read("alice") } == "alice")
        }
        #expect(reads.total == 1)
        clock.advance(by: 5)
        #expect(try await cache.owner(of: Self.key) { reads.read("alice") } == "alice")
        #expect(reads.total == 2, "an entry is not trusted at its expiry")
    }

    @Test("what does not exist is read every time, so a new key or passkey works at once")
    func absentNotRemembered() async throws {
        let cache = ValidationCache(lifetime: 5, now: { Date() })
        let reads = Reads()
        #expect(try await cache.owner(of: Self.key) { reads.read(String?.none) } == nil)
        #expect(try await cache.owner(of: Self.key) { reads.read("alice") } == "alice")
        #expect(reads.total == 2)
    }

    @Test("a lifetime of zero turns the cache off")
    func off() async throws {
        let cache = ValidationCache(lifetime: 0, now: { Date() })
        let reads = Reads()
        for _ in 0..<3 { _ = try await cache.owner(of: Self.key) { reads.read("alice") } }
        #expect(reads.total == 3)
        #expect(cache.count == 0)
    }

    @Test("a statement that can delete a credential, user, key or application clears everything")
    func clearingStatements() async throws {
        for sql in [
            "DELETE FROM credentials WHERE id = ?", "DELETE FROM users WHERE id = ?",
            "DELETE FROM api_keys WHERE id = ?",
            "DELETE FROM applications WHERE id = ?", "UPDATE applications SET name = ?", "UPDATE api_keys SET x = ?",
            "UPDATE users SET x = ?", "WITH x AS (SELECT 1) DELETE FROM credentials", "DELETE FROM \"credentials\"",
            "UPDATE \"users\" SET x = ?", "WITH gone AS (DELETE FROM users WHERE x = ? RETURNING x) SELECT 1",
            "WITH a AS (SELECT 1) UPDATE applications SET x = ?",
            "WITH x AS (INSERT INTO challenges (c) VALUES (?)) UPDATE \"api_keys\" SET y = ?",
        ] {
            let statement = StoreStatement(sql: sql)
            #expect(ValidationCache.clears(statement), "\(sql)")
            let cache = ValidationCache(lifetime: 60, now: { Date() })
            let reads = Reads()
            _ = try await cache.owner(of: Self.key) { reads.read("alice") }
            cache.statementFinished(statement, duration: .zero, failed: false)
            _ = try await cache.owner(of: Self.key) { reads.read("alice") }
            #expect(reads.total == 2, "\(sql) clears")
        }
        for sql in [
            "SELECT * FROM credentials", "INSERT INTO credentials (x) VALUES (?)",
            "UPDATE credentials SET sign_count = ?",
            "DELETE FROM challenges WHERE x = ?", "UPDATE oob_transactions SET x = ?",
            "INSERT INTO audit_events (x) VALUES (?)",
            """
            WITH consumed AS (DELETE FROM challenges WHERE c = ? RETURNING c),
            used AS (UPDATE credentials SET sign_count = ? WHERE EXISTS (SELECT 1 FROM consumed) RETURNING id),
            written AS (INSERT INTO audit_events (x) SELECT ? WHERE EXISTS (SELECT 1 FROM used) RETURNING id)
            SELECT (SELECT count(*) FROM consumed) AS consumed
            """,
            """
            WITH consumed AS (UPDATE oauth_grants SET consumed_at = ? RETURNING kind),
            successor AS (INSERT INTO oauth_grants (kind) SELECT kind FROM consumed RETURNING kind) SELECT 1
            """,
        ] {
            #expect(!ValidationCache.clears(StoreStatement(sql: sql)), "\(sql): a login's own writes keep the cache")
        }
        // A `WITH` statement is labelled by its writes; one that writes nothing is `with`.
        #expect(
            StoreStatement(
                sql: "WITH c AS (DELETE FROM challenges RETURNING c) INSERT INTO audit_events (x) SELECT 1 FROM c"
            ).label == "WITH DELETE challenges + INSERT audit_events")
        #expect(StoreStatement(sql: "WITH a AS (SELECT 1) SELECT * FROM a").label == "with")
        #expect(ValidationCache.clears(StoreStatement(sql: "WITH a AS (SELECT 1) SELECT * FROM a")))
    }

    @Test("a read that overlapped a deletion is not remembered")
    func raceWithDeletion() async throws {
        let cache = ValidationCache(lifetime: 60, now: { Date() })
        let reads = Reads()
        // The row was read, then the deletion committed before the read's answer was stored.
        let stale = try await cache.owner(of: Self.key) {
            let value = reads.read("alice")
            cache.statementFinished(
                StoreStatement(sql: "DELETE FROM credentials WHERE x = ?"), duration: .zero, failed: false)
            return value
        }
        #expect(stale == "alice", "that one answer stands; it was true when read")
        #expect(try await cache.owner(of: Self.key) { reads.read(String?.none) } == nil)
        #expect(reads.total == 2, "the next lookup reads the store, which no longer has it")
    }

    @Test("memory stays within the capacity")
    func capacity() async throws {
        let cache = ValidationCache(lifetime: 60, capacity: 8, now: { Date() })
        let reads = Reads()
        for index in 0..<20 {
            let key = ValidationCache.CredentialKey(applicationID: Self.key.applicationID, credentialID: [UInt8(index)])
            _ = try await cache.owner(of: key) { reads.read("user\(index)") }
        }
        #expect(cache.count <= 8)
        #expect(reads.total == 20)
    }

    @Test(
        "on a shared database, a deletion on one instance clears its own cache at once and the other's within the lifetime"
    )
    func acrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let device = Device.make()
            _ = try await a.register(
                app, user: "alice", device: device, enrollmentToken: try await a.enrollmentToken(app, user: "alice"))
            let login = try await a.authenticate(app, user: "alice", device: device)
            let added = try await a.send(
                .post, APIOperation.createAPIKey.path(["id": app.id]), bearer: TestServer.adminToken)
            let secondKey = try #require(added["api_key"]?.stringValue)
            let secondKeyID = try #require(added["key_id"]?.stringValue)
            for api in [a, b] {
                #expect(try await api.validate(app, user: "alice", token: .string(login.token)).status == .ok)
                #expect(
                    try await api.validate(app, user: "alice", token: .string(login.token), key: secondKey).status
                        == .ok)
            }

            let path =
                APIOperation.deleteUserCredential.path(["user_id": "alice", "credential_id": login.credentialID])
                + "?application_id=\(app.id)"
            #expect(try await a.send(.delete, path, bearer: app.apiKey).status == .ok)
            let keyPath = APIOperation.deleteAPIKey.path(["id": app.id, "key_id": secondKeyID])
            #expect(try await a.send(.delete, keyPath, bearer: TestServer.adminToken).status == .ok)

            #expect(
                try await a.validate(app, user: "alice", token: .string(login.token)).status == .unauthorized,
                "the instance that deleted the credential sees it at once")
            #expect(
                try await a.validate(app, user: "alice", token: .string(login.token), key: secondKey).status
                    == .unauthorized, "and the key")
            #expect(
                try await b.validate(app, user: "alice", token: .string(login.token)).status == .ok,
                "the other instance answers from memory within the documented bound")

            a.clock.advance(by: 5)
            #expect(try await b.validate(app, user: "alice", token: .string(login.token)).status == .unauthorized)
            #expect(
                try await b.validate(app, user: "alice", token: .string(login.token), key: secondKey).status
                    == .unauthorized)
        }
    }
}
