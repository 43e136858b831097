import Foundation
import Logging
import Testing
import UMFAStorage
import UMFATestSupport

@testable import UMFATokens

/// validate-token remembers the login tokens whose signature verified (``VerifiedTokenMemo``):
/// a token checked again costs no signature, and nothing that depends on the time or on the
/// keys is ever answered from that memory.
@Suite("Verified login tokens are remembered, never their time checks")
struct VerifiedTokenMemoTests {
    static let application = UUID()

    /// A token service on a fresh SQLite file, its clock, and a token for alice issued now.
    static func withService(
        _ body: (TokenService, TestClock, String) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-memo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
        let clock = TestClock()
        let masterKey = try MasterKey(base64: Data((0..<32).map { UInt8($0) }).base64EncodedString())
        let tokens = TokenService(store: store, masterKey: masterKey, now: { clock.now })
        try await tokens.loadKeys()
        let iat = Int64(clock.now.timeIntervalSince1970)
        let id = application.uuidString.lowercased()
        let token = try await tokens.issue(
            LoginTokenClaims(
                iss: tokens.issuer, sub: LoginTokenClaims.subject, aud: [tokens.issuer, id], iat: iat, exp: iat + 300,
                jti: UUID().uuidString, userID: "alice", applicationID: id, credentialID: "AQID",
                webauthnTime: "2026-01-01T00:00:00.000Z", userpwTime: nil, amr: ["hwk"]))
        do {
            try await body(tokens, clock, token)
        } catch {
            try await store.close()
            throw error
        }
        try await store.close()
    }

    /// The failure's message, or `nil` when `token` validates.
    static func refusal(
        _ tokens: TokenService, _ token: String, at now: Date, user: String = "alice", application: UUID = application,
        maximumLifetime: TimeInterval = 300
    ) async -> String? {
        do {
            _ = try await tokens.validate(
                token, applicationID: application, userID: user, maximumLifetime: maximumLifetime, now: now)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("the same token checked again is answered from memory, with the same claims and the same checks")
    func secondCheckFromMemory() async throws {
        try await Self.withService { tokens, clock, token in
            let first = try await tokens.validate(
                token, applicationID: Self.application, userID: "alice", maximumLifetime: 300, now: clock.now)
            #expect(tokens.verifiedTokens.hits == 0)
            #expect(tokens.verifiedTokens.count == 1)
            let second = try await tokens.validate(
                token, applicationID: Self.application, userID: "alice", maximumLifetime: 300, now: clock.now)
            #expect(tokens.verifiedTokens.hits == 1)
            #expect(first != nil && first == second)
            // Another user and another application are refused, though the memory answers.
            #expect(
                await Self.refusal(tokens, token, at: clock.now, user: "bob")
                    == "Invalid JWT: the user_id claim does not match the user")
            #expect(
                await Self.refusal(tokens, token, at: clock.now, application: UUID())
                    == "Invalid JWT: the token was issued for another application")
            #expect(tokens.verifiedTokens.hits == 3)
        }
    }

    @Test("a token refused on first sight is not remembered")
    func refusedIsNotRemembered() async throws {
        try await Self.withService { tokens, clock, token in
            #expect(
                await Self.refusal(tokens, token, at: clock.now, user: "bob")
                    == "Invalid JWT: the user_id claim does not match the user")
            #expect(
                await Self.refusal(tokens, token, at: clock.now, maximumLifetime: 60)
                    == "Invalid JWT: the token lives longer than the application's token TTL")
            #expect(tokens.verifiedTokens.count == 0)
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            #expect(tokens.verifiedTokens.count == 1)
        }
    }

    @Test("expiry and a key retired too long ago refuse a remembered token; new keys empty the memory")
    func timeIsCheckedEveryCall() async throws {
        try await Self.withService { tokens, clock, token in
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            #expect(
                await Self.refusal(tokens, token, at: clock.now.addingTimeInterval(300))
                    == "Invalid JWT: the token has expired")
            #expect(tokens.verifiedTokens.hits == 0, "an expired token is not answered from memory")

            // Rotation reloads the keys, which empties the memory; the token passes again in full.
            clock.advance(by: 10)
            _ = try await tokens.rotate()
            #expect(tokens.verifiedTokens.count == 0)
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            #expect(tokens.verifiedTokens.hits == 0)
            // For an application whose TTL is 5 s, the key retired too long ago 6 s on: the
            // memory answers, and the retirement check refuses.
            let message = await Self.refusal(
                tokens, token, at: clock.now.addingTimeInterval(6), maximumLifetime: 5)
            #expect(message?.hasSuffix("was retired too long ago") == true, "\(message ?? "accepted")")
            #expect(tokens.verifiedTokens.hits == 1)
        }
    }

    @Test("a token that differs by one byte is verified in full, and refused")
    func changedBytesAreNotRemembered() async throws {
        try await Self.withService { tokens, clock, token in
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            var forged = Array(token.utf8)
            let index = forged.count - 10
            forged[index] = forged[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let message = await Self.refusal(tokens, String(decoding: forged, as: UTF8.self), at: clock.now)
            #expect(message == "Invalid JWT: the signature does not verify")
            #expect(tokens.verifiedTokens.hits == 0)
            #expect(tokens.verifiedTokens.count == 1)
        }
    }

    @Test(
        "an entry answers only before its exp and while its key is found; at the capacity all go; a reload keeps out what was seen before it"
    )
    func memoBounds() {
        let memo = VerifiedTokenMemo(capacity: 2)
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let base = now.timeIntervalSince1970
        func claims(exp: Double?) -> ReceivedLoginClaims {
            var claims = ReceivedLoginClaims()
            claims.exp = exp
            return claims
        }
        let (a, b, c) = (
            VerifiedTokenMemo.digest(of: "a"), VerifiedTokenMemo.digest(of: "b"), VerifiedTokenMemo.digest(of: "c")
        )
        let loaded: (String) -> Int? = { $0 == "k" ? 1 : nil }
        memo.remember(memo.unseen(a), claims: claims(exp: base + 10), kid: "k", now: now)
        #expect(memo.recall(a, now: now.addingTimeInterval(9), key: loaded) != nil)
        #expect(memo.recall(a, now: now.addingTimeInterval(10), key: loaded) == nil, "at exp")
        #expect(memo.recall(a, now: now, key: { _ in Int?.none }) == nil, "its key is no longer loaded")
        #expect(memo.hits == 1)
        memo.remember(memo.unseen(b), claims: claims(exp: base + 300), kid: "k", now: now)
        #expect(memo.count == 2)
        memo.remember(memo.unseen(c), claims: claims(exp: base + 300), kid: "k", now: now)
        #expect(memo.count == 1)
        #expect(memo.recall(c, now: now, key: loaded) != nil)
        // A token without exp, or already expired, is never kept.
        memo.remember(memo.unseen(a), claims: claims(exp: nil), kid: "k", now: now)
        memo.remember(memo.unseen(b), claims: claims(exp: base), kid: "k", now: now)
        #expect(memo.count == 1)
        // Seen before the keys reloaded: not remembered after.
        let seen = memo.unseen(a)
        memo.removeAll()
        memo.remember(seen, claims: claims(exp: base + 300), kid: "k", now: now)
        #expect(memo.count == 0)
        memo.remember(memo.unseen(a), claims: claims(exp: base + 300), kid: "k", now: now)
        #expect(memo.count == 1)
    }
}
