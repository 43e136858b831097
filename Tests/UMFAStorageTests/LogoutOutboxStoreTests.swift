import Foundation
import Testing
import UMFAEncoding
import UMFAStorage

/// Back-channel logout's storage on both engines: the participants of a session or of a user's
/// sign-ins are taken once, and the logout-token outbox claims, reschedules and removes rows.
@Suite("Storage: back-channel logout participants and outbox")
struct LogoutOutboxStoreTests {
    static func participant(
        _ app: UUID, session: String, client: String, user: String, credential: [UInt8]?, expires: Double = 100
    ) -> OAuthGrantRecord {
        OAuthGrantRecord(
            kind: .logoutParticipant, handleHash: Array("\(session)/\(client)".utf8), applicationID: app,
            family: session, subject: user, payload: Array("{}".utf8), createdAt: Records.time(1),
            expiresAt: Records.time(expires), credentialID: credential)
    }

    @Test("a session's participants, or a passkey's, or a user's, are each taken once", arguments: Engine.allCases)
    func participants(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let phone: [UInt8] = [1, 2, 3]
            let laptop: [UInt8] = [4, 5, 6]
            for record in [
                Self.participant(app.id, session: "s1", client: "shop", user: "alice", credential: phone),
                Self.participant(app.id, session: "s1", client: "blog", user: "alice", credential: phone),
                Self.participant(app.id, session: "s2", client: "shop", user: "alice", credential: laptop),
                Self.participant(app.id, session: "s3", client: "shop", user: "bob", credential: [7]),
                Self.participant(app.id, session: "s4", client: "shop", user: "alice", credential: phone, expires: 5),
            ] {
                try await store.insertOAuthGrant(record)
            }
            func take(session: String? = nil, user: String? = nil, credential: [UInt8]? = nil) async throws
                -> [String]
            {
                try await store.takeLogoutParticipants(
                    applicationID: app.id, sessionID: session, subject: user, credentialID: credential,
                    at: Records.time(10)
                ).map { String(decoding: $0.handleHash, as: UTF8.self) }.sorted()
            }
            #expect(try await take(session: "s1") == ["s1/blog", "s1/shop"])
            #expect(try await take(session: "s1").isEmpty, "once")
            #expect(try await take(user: "alice", credential: phone).isEmpty, "s1 is taken; s4 expired")
            #expect(try await take(user: "alice", credential: [9]).isEmpty, "another passkey's")
            #expect(try await take(user: "alice") == ["s2/shop"])
            #expect(try await take(user: "bob", credential: [7]) == ["s3/shop"])
        }
    }

    @Test(
        "the outbox claims due tokens under a lease, reschedules a failure once, removes a delivery",
        arguments: Engine.allCases)
    func outbox(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let deliveries = ["a", "b"].map {
                LogoutDeliveryRecord(
                    id: $0, applicationID: app.id, clientID: "shop", uri: "https://shop.example/bcl?x=\($0)",
                    body: #"{"jti":"\#($0)"}"#, nextAttemptAt: Records.time(5), createdAt: Records.time(1))
            }
            try await store.enqueueLogoutTokens(deliveries)
            #expect(
                try await store.claimDueLogoutTokens(at: Records.time(4), leaseUntil: Records.time(20), limit: 10)
                    .isEmpty)
            let claimed = try await store.claimDueLogoutTokens(
                at: Records.time(5), leaseUntil: Records.time(20), limit: 10)
            #expect(claimed.map(\.id).sorted() == ["a", "b"] && claimed[0].nextAttemptAt == Records.time(20))
            #expect(claimed.first { $0.id == "a" }?.uri == "https://shop.example/bcl?x=a")
            #expect(
                try await store.claimDueLogoutTokens(at: Records.time(6), leaseUntil: Records.time(30), limit: 10)
                    .isEmpty, "under lease")
            try await store.deleteLogoutToken(id: "a")
            try await store.rescheduleLogoutToken(
                id: "b", claimedUntil: Records.time(20), attempts: 1, nextAttemptAt: Records.time(25), error: "HTTP 500"
            )
            try await store.rescheduleLogoutToken(
                id: "b", claimedUntil: Records.time(20), attempts: 9, nextAttemptAt: Records.time(99), error: "stale")
            let again = try await store.claimDueLogoutTokens(
                at: Records.time(25), leaseUntil: Records.time(40), limit: 10)
            #expect(again.map(\.id) == ["b"] && again.first?.attempts == 1 && again.first?.lastError == "HTTP 500")
        }
    }
}
