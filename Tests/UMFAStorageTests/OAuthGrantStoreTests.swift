import Foundation
import Testing
import UMFAStorage

/// OAuth grants and revoked access tokens: what the token endpoint asks of the store in one
/// statement each, on both engines.
struct OAuthGrantStoreTests {
    static func grant(_ applicationID: UUID, family: String, expiresAt: Date = Records.time(3600)) -> OAuthGrantRecord {
        OAuthGrantRecord(
            kind: .refreshToken, handleHash: Records.bytes(32), applicationID: applicationID, family: family,
            subject: "alice", payload: Array(#"{"family":"\#(family)"}"#.utf8), createdAt: Records.epoch,
            expiresAt: expiresAt)
    }

    @Test(
        "consuming a grant says whether its family was revoked, once, and only for its own application",
        arguments: Engine.allCases)
    func consumeReportsRevokedFamily(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let live = Self.grant(app.id, family: "f-live")
            let revoked = Self.grant(app.id, family: "f-revoked")
            let otherAppsMark = Self.grant(app.id, family: "f-other")
            for grant in [live, revoked, otherAppsMark] { try await store.insertOAuthGrant(grant) }
            try await store.revokeAccessToken(jti: "f-revoked", applicationID: app.id, expiresAt: Records.time(7200))
            try await store.revokeAccessToken(jti: "f-other", applicationID: other.id, expiresAt: Records.time(7200))

            let now = Records.time(10)
            for (grant, familyRevoked) in [(live, false), (revoked, true), (otherAppsMark, false)] {
                let consumed = try #require(
                    try await store.consumeOAuthGrant(
                        kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id, at: now))
                #expect(consumed.record == grant)
                #expect(consumed.familyRevoked == familyRevoked, "\(grant.family ?? "")")
                // Spent: a second consumer gets nothing, and the stored grant is marked.
                #expect(
                    try await store.consumeOAuthGrant(
                        kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id, at: now) == nil)
                let stored = try #require(
                    try await store.oauthGrant(kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id)
                )
                #expect(stored.consumedAt == now)
            }
        }
    }

    @Test("one statement asks whether a token or its family was revoked", arguments: Engine.allCases)
    func anyRevoked(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            try await store.revokeAccessToken(jti: "family", applicationID: app.id, expiresAt: Records.time(60))
            try await store.revokeAccessToken(jti: "token", applicationID: other.id, expiresAt: Records.time(60))
            #expect(try await store.isAnyAccessTokenRevoked(jtis: ["family.abc", "family"], applicationID: app.id))
            #expect(try await store.isAnyAccessTokenRevoked(jtis: ["family"], applicationID: app.id))
            #expect(try await !store.isAnyAccessTokenRevoked(jtis: ["family.abc", "token"], applicationID: app.id))
            #expect(try await store.isAnyAccessTokenRevoked(jtis: ["x", "token"], applicationID: other.id))
            #expect(try await !store.isAnyAccessTokenRevoked(jtis: [], applicationID: app.id))
            #expect(try await store.isAccessTokenRevoked(jti: "family", applicationID: app.id))
            #expect(try await !store.isAccessTokenRevoked(jti: "family", applicationID: other.id))
        }
    }
}
