import Foundation
import Testing
import UMFAEncoding
import UMFAStorage

@Suite("Storage: out-of-band transactions, device keys and the webhook outbox")
struct OutOfBandDeliveryStoreTests {
    static func transaction(
        _ app: UUID, _ id: String, user: String?, created: Double, expires: Double,
        operation: OutOfBandOperation = .authentication
    ) -> OutOfBandTransactionRecord {
        OutOfBandTransactionRecord(
            transactionID: id, applicationID: app, operation: operation, userID: user, username: "name-\(id)",
            statusTokenHash: Records.bytes(32), dispatchTokenHash: Records.bytes(32),
            sealedDispatchToken: Records.bytes(60), message: "message \(id)", approvalNonce: Records.bytes(32),
            createdAt: Records.time(created), updatedAt: Records.time(created), expiresAt: Records.time(expires))
    }

    @Test(
        "pending approvals: the user's unredeemed, unexpired ones, oldest first; expiry ends each once",
        arguments: Engine.allCases)
    func pendingAndExpiry(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let records = [
                Self.transaction(app.id, "t2", user: "alice", created: 2, expires: 100),
                Self.transaction(app.id, "t1", user: "alice", created: 1, expires: 100),
                Self.transaction(app.id, "t3", user: "bob", created: 3, expires: 100),
                Self.transaction(app.id, "t4", user: nil, created: 4, expires: 100),
                Self.transaction(app.id, "t5", user: "alice", created: 5, expires: 10),
                Self.transaction(app.id, "t6", user: "alice", created: 6, expires: 100, operation: .registration),
                Self.transaction(app.id, "t7", user: "alice", created: 7, expires: 100),
            ]
            for record in records { try await store.insertOutOfBandTransaction(record) }
            let redeemed = try await store.redeemOutOfBandDispatch(
                tokenHash: records[6].dispatchTokenHash, challenge: Records.bytes(32), at: Records.time(8))
            #expect(redeemed?.transactionID == "t7")
            let read = try await store.outOfBandTransaction(id: "t1")
            #expect(read == records[1], "username and the sealed dispatch token read back as written")

            let pending = try await store.pendingApprovals(applicationID: app.id, userID: "alice", at: Records.time(20))
            #expect(pending.map(\.transactionID) == ["t1", "t2"], "no other user, expired, enrollment or redeemed one")

            let expired = try await store.expireOutOfBandTransactions(at: Records.time(50))
            #expect(expired.map(\.transactionID) == ["t5"])
            #expect(try await store.expireOutOfBandTransactions(at: Records.time(51)).isEmpty, "once")
            #expect(try await store.outOfBandTransaction(id: "t5")?.status == .expired)
            #expect(
                try await store.finishOutOfBandTransaction(
                    id: "t5", status: .succeeded, userID: "alice", credentialID: nil, sealedToken: nil, evidence: nil,
                    at: Records.time(52)) == false, "an expired transaction no longer ends otherwise")
        }
    }

    @Test("device keys: one per credential, replaced, gone with the credential", arguments: Engine.allCases)
    func deviceKeys(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let credential = Records.credential(app.id, "alice")
            try await store.insertCredential(credential)
            var key = DeviceKeyRecord(
                applicationID: app.id, credentialID: credential.credentialID, userID: "alice", name: "Phone",
                pushToken: "fcm-1", publicJWK: #"{"crv":"P-256","kty":"EC","x":"a","y":"b"}"#,
                createdAt: Records.time(1))
            try await store.upsertDeviceKey(key)
            #expect(try await store.deviceKey(applicationID: app.id, credentialID: credential.credentialID) == key)
            key.pushToken = nil
            key.publicJWK = #"{"crv":"P-256","kty":"EC","x":"c","y":"d"}"#
            try await store.upsertDeviceKey(key)
            #expect(try await store.deviceKey(applicationID: app.id, credentialID: credential.credentialID) == key)
            #expect(
                try await store.deleteCredential(
                    applicationID: app.id, userID: "alice", credentialID: credential.credentialID))
            #expect(try await store.deviceKey(applicationID: app.id, credentialID: credential.credentialID) == nil)
        }
    }

    @Test(
        "the outbox: due rows are claimed once per lease, rescheduled and deleted",
        arguments: Engine.allCases)
    func outbox(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            for (index, due) in [1.0, 2, 50].enumerated() {
                try await store.enqueueWebhook(
                    WebhookDeliveryRecord(
                        id: "w\(index)", applicationID: app.id, body: #"{"n":\#(index)}"#,
                        nextAttemptAt: Records.time(due), createdAt: Records.time(Double(index))))
            }
            let claimed = try await store.claimDueWebhooks(
                at: Records.time(10), leaseUntil: Records.time(25), limit: 20)
            #expect(claimed.map(\.id) == ["w0", "w1"] && claimed.first?.body == #"{"n":0}"#)
            #expect(
                try await store.claimDueWebhooks(at: Records.time(11), leaseUntil: Records.time(26), limit: 20).isEmpty,
                "a claimed row is not claimed again while its lease runs")
            try await store.deleteWebhook(id: "w0")
            // A stale lease changes nothing; the current one reschedules.
            try await store.rescheduleWebhook(
                id: "w1", claimedUntil: Records.time(24), attempts: 5, nextAttemptAt: Records.time(99), error: "stale")
            try await store.rescheduleWebhook(
                id: "w1", claimedUntil: Records.time(25), attempts: 1, nextAttemptAt: Records.time(60),
                error: "HTTP 500")
            let again = try await store.claimDueWebhooks(at: Records.time(55), leaseUntil: Records.time(70), limit: 1)
            #expect(again.map(\.id) == ["w2"], "the limit, and the rescheduled row not yet due")
            let late = try await store.claimDueWebhooks(at: Records.time(80), leaseUntil: Records.time(95), limit: 5)
            #expect(late.map(\.id) == ["w1", "w2"] && late.first?.attempts == 1 && late.first?.lastError == "HTTP 500")
            #expect(try await store.pendingWebhooks(applicationID: app.id).map(\.id) == ["w1", "w2"])
        }
    }
}
