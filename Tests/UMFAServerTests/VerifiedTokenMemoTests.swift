import Foundation
import Logging
import Testing
import UMFAStorage

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
    static func refusal(_ tokens: TokenService, _ token: String, at now: Date, user: String = "alice") async -> String?
    {
        do {
            _ = try await tokens.validate(
                token, applicationID: application, userID: user, maximumLifetime: 300, now: now)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("the same token checked again is answered from memory, with the same claims")
    func secondCheckFromMemory() async throws {
        try await Self.withService { tokens, clock, token in
            let first = try await tokens.validate(
                token, applicationID: Self.application, userID: "alice", maximumLifetime: 300, now: clock.now)
            #expect(tokens.verifiedTokens.hits == 0 && tokens.verifiedTokens.count == 1)
            let second = try await tokens.validate(
                token, applicationID: Self.application, userID: "alice", maximumLifetime: 300, now: clock.now)
            #expect(tokens.verifiedTokens.hits == 1)
            #expect(first != nil && first == second)
            // Another user and another application are still refused from memory.
            #expect(
                await Self.refusal(tokens, token, at: clock.now, user: "bob")
                    == "Invalid JWT: the user_id claim does not match the user")
            #expect(tokens.verifiedTokens.hits == 2)
        }
    }

    @Test("expiry and a key retired too long ago refuse a remembered token")
    func timeIsCheckedEveryCall() async throws {
        try await Self.withService { tokens, clock, token in
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            // Expired: the memory's use ends with the token (plus the clock skew); until then the
            // expiry check refuses it all the same.
            #expect(
                await Self.refusal(tokens, token, at: clock.now.addingTimeInterval(301))
                    == "Invalid JWT: the token has expired")
            #expect(tokens.verifiedTokens.hits == 1)

            // The key is retired; later than the token's TTL after that, the key validates nothing.
            clock.advance(by: 10)
            _ = try await tokens.rotate()
            #expect(await Self.refusal(tokens, token, at: clock.now) == nil)
            #expect(tokens.verifiedTokens.hits == 2)
            let message = await Self.refusal(tokens, token, at: clock.now.addingTimeInterval(301))
            #expect(message?.hasSuffix("was retired too long ago") == true, "\(message ?? "accepted")")
            #expect(tokens.verifiedTokens.hits == 3)
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
            #expect(tokens.verifiedTokens.hits == 0 && tokens.verifiedTokens.count == 1)
        }
    }

    @Test("held entries stay under the capacity: expired ones go first, then all")
    func capacity() {
        let memo = VerifiedTokenMemo(capacity: 3)
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        func claims(exp: Double) -> ReceivedLoginClaims {
            var claims = ReceivedLoginClaims()
            claims.exp = exp
            return claims
        }
        let base = now.timeIntervalSince1970
        memo.remember(VerifiedTokenMemo.digest(of: "a"), claims: claims(exp: base + 1), kid: "k", now: now)
        memo.remember(VerifiedTokenMemo.digest(of: "b"), claims: claims(exp: base + 300), kid: "k", now: now)
        memo.remember(VerifiedTokenMemo.digest(of: "c"), claims: claims(exp: base + 300), kid: "k", now: now)
        // "a" is past its use 62 seconds on: the fourth entry pushes out only it.
        let later = now.addingTimeInterval(62)
        memo.remember(VerifiedTokenMemo.digest(of: "d"), claims: claims(exp: base + 300), kid: "k", now: later)
        #expect(memo.count == 3)
        #expect(memo.recall(VerifiedTokenMemo.digest(of: "a"), now: now) == nil)
        #expect(memo.recall(VerifiedTokenMemo.digest(of: "b"), now: later) != nil)
        // None expired: all go.
        memo.remember(VerifiedTokenMemo.digest(of: "e"), claims: claims(exp: base + 300), kid: "k", now: later)
        #expect(memo.count == 1)
        // A token without exp, or expired, is never kept.
        memo.remember(VerifiedTokenMemo.digest(of: "f"), claims: ReceivedLoginClaims(), kid: "k", now: later)
        memo.remember(VerifiedTokenMemo.digest(of: "g"), claims: claims(exp: base + 10), kid: "k", now: later)
        #expect(memo.count == 1)
    }
}
