import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage

@testable import UMFAServer

/// ``RecoveryCodeService`` built from its ports alone (a SQLite file, the abuse guard, the audit log):
/// codes are stored hashed, each redeems once for an enrollment token, and a wrong code counts
/// like a failed sign-in (docs/contract.md §8). No server.
@Suite("Recovery codes from their ports: issued hashed, good once, wrong codes counted")
struct RecoveryCodesFeatureTests {
    static func recoveryCodes(_ ports: FeaturePorts) -> RecoveryCodeService {
        let apiKeys = ports.apiKeys
        return RecoveryCodeService(
            store: ports.store, codes: RecoveryCodes(store: ports.store, audit: ports.audit, now: ports.now),
            loginTokens: LoginTokens(
                tokens: ports.tokens, store: ports.store, validationCache: ports.validationCache, now: ports.now),
            apiKeys: apiKeys,
            enrollmentTokens: EnrollmentTokenService(apiKeys: apiKeys, store: ports.store, now: ports.now),
            abuse: ports.abuse, audit: ports.audit, now: ports.now)
    }

    static func redeem(_ code: String, _ ports: FeaturePorts, user: String = "alice", from address: String? = nil)
        async throws -> EnrollmentTokenResponse
    {
        let caller = address.map { Caller(traceID: "trace-recovery", clientAddress: $0) } ?? ports.caller
        return try await recoveryCodes(ports).redeem(
            RecoveryRequest(
                applicationID: ports.application.id.uuidString, userID: user, recoveryCode: code),
            caller: caller)
    }

    @Test("ten distinct codes are issued, stored only as their hashes, and recovery.codes_created is recorded")
    func issued() async throws {
        try await FeaturePorts.with { ports in
            try await ports.addUser("alice")
            let codes = try await Self.recoveryCodes(ports).codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}/) != nil })
            let stored = try await ports.store.recoveryCodes(applicationID: ports.application.id, userID: "alice")
            #expect(Set(stored) == Set(codes.map { Secrets.hash(RecoveryCodeService.canonical($0)) }))
            let events = try await ports.events(.recoveryCodesCreated)
            #expect(events.map(\.actor) == ["user:alice"])
            #expect(events.first?.details["count"] == .number(10))
        }
    }

    @Test("a code redeems once for an enrollment token; the second use is refused and recorded as failed")
    func goodOnce() async throws {
        try await FeaturePorts.with { ports in
            try await ports.addUser("alice")
            let codes = try await Self.recoveryCodes(ports).codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            let answer = try await Self.redeem(codes[3], ports)
            #expect(answer.enrollmentToken.hasPrefix("umfa_et_"))
            let token = try await ports.store.enrollmentToken(
                hash: Secrets.hash(answer.enrollmentToken), applicationID: ports.application.id, userID: "alice")
            #expect(token?.expiresAt == ports.clock.now.addingTimeInterval(600))
            #expect(try await ports.events(.recoveryUsed).first?.details["remaining"] == .number(9))

            let again = await #expect(throws: ServiceError.self) { try await Self.redeem(codes[3], ports) }
            #expect(again?.code == .unauthenticated)
            #expect(
                try await ports.store.recoveryCodes(applicationID: ports.application.id, userID: "alice").count == 9)
            #expect(try await ports.events(.recoveryFailed).map(\.userID) == ["alice"])
        }
    }

    @Test("a code is read as Crockford base32: lower case, no dashes, O for 0 and I or L for 1")
    func lookAlikes() async throws {
        try await FeaturePorts.with { ports in
            try await ports.addUser("alice")
            let codes = try await Self.recoveryCodes(ports).codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            let code = codes[0]
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
                .replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "l")
            #expect(try await Self.redeem(typed, ports).enrollmentToken.hasPrefix("umfa_et_"))
            // Another user's codes are not this user's.
            try await ports.addUser("bob")
            let other = await #expect(throws: ServiceError.self) { try await Self.redeem(codes[1], ports, user: "bob") }
            #expect(other?.code == .unauthenticated)
        }
    }

    @Test("new codes replace the old set: a code of the first set no longer redeems")
    func replaced() async throws {
        try await FeaturePorts.with { ports in
            try await ports.addUser("alice")
            let feature = Self.recoveryCodes(ports)
            let first = try await feature.codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            let second = try await feature.codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            let refused = await #expect(throws: ServiceError.self) { try await Self.redeem(first[0], ports) }
            #expect(refused?.code == .unauthenticated)
            #expect(try await Self.redeem(second[0], ports).enrollmentToken.hasPrefix("umfa_et_"))
        }
    }

    @Test("wrong codes block the user from that address, even for a right code, until the block ends")
    func guessingBlocked() async throws {
        let limits = AbuseLimits(userFailures: 3, addressFailures: 100, window: .seconds(60), baseBlock: .seconds(30))
        try await FeaturePorts.with(limits: limits) { ports in
            try await ports.addUser("alice")
            let codes = try await Self.recoveryCodes(ports).codes.issue(
                application: ports.application.id, userID: "alice", actor: .user("alice"), caller: ports.caller)
            for guess in ["AAAA-AAAA-AAAA-AAAA", "BBBB-BBBB-BBBB-BBBB", "CCCC-CCCC-CCCC-CCCC"] {
                let error = await #expect(throws: ServiceError.self) { try await Self.redeem(guess, ports) }
                #expect(error?.code == .unauthenticated)
            }
            let blocked = await #expect(throws: ServiceError.self) { try await Self.redeem(codes[0], ports) }
            #expect(blocked?.code == .rateLimited(retryAfterSeconds: 30))
            // The real user elsewhere is not locked out by the guesses.
            #expect(try await Self.redeem(codes[1], ports, from: "198.51.100.9").enrollmentToken.hasPrefix("umfa_et_"))
            ports.clock.advance(by: 31)
            #expect(try await Self.redeem(codes[0], ports).enrollmentToken.hasPrefix("umfa_et_"))
            #expect(try await ports.events(.recoveryFailed).count == 3)
        }
    }
}
