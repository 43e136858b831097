import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAWebAuthn
import UMFAWebAuthnTypes

@testable import UMFAServer

@Suite("Abuse limits")
struct AbuseLimitTests {
    static let limits = AbuseLimits(
        userFailures: 3, addressFailures: 8, credentialFailures: 4, window: .seconds(60), baseBlock: .seconds(30),
        maxBlock: .seconds(120))

    /// A 429 in the documented shape with a `Retry-After` of `seconds`.
    static func expectLimited(
        _ reply: Reply, retryAfter seconds: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectError(reply, .tooManyRequests, containing: "Too many failed attempts", sourceLocation: sourceLocation)
        #expect(reply.headers[.retryAfter] == String(seconds), sourceLocation: sourceLocation)
    }

    @Test("failed sign-ins block the user from that address with 429 + Retry-After; elsewhere the user signs in")
    func userLimit() async throws {
        try await AbuseServer.with(limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "alice", device: device)
            for _ in 0..<3 {
                let reply = try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9")
                expectError(reply, .unauthorized)
            }
            // Blocked from the attacker's address, even with a valid assertion: nothing is verified.
            let valid = try await api.assertion(app, user: "alice", device: device)
            let refused = try await api.signIn(app, user: "alice", assertion: valid, from: "203.0.113.9")
            Self.expectLimited(refused, retryAfter: 30)
            // The real user's device on another address is not affected, with the same assertion.
            let real = try await api.signIn(app, user: "alice", assertion: valid, from: "198.51.100.7")
            #expect(real.status == .ok, "\(real.text)")
            // Another user from the blocked address is not affected by alice's lock.
            let bobDevice = Device.make()
            _ = try await api.register(app, user: "bob", device: bobDevice)
            let bob = try await api.signIn(
                app, user: "bob", assertion: try await api.assertion(app, user: "bob", device: bobDevice),
                from: "203.0.113.9")
            #expect(bob.status == .ok, "\(bob.text)")
            // The block ends: 30 s later the address may try again and a valid assertion passes.
            api.clock.advance(by: 31)
            let later = try await api.signIn(
                app, user: "alice", assertion: try await api.assertion(app, user: "alice", device: device),
                from: "203.0.113.9")
            #expect(later.status == .ok, "\(later.text)")
        }
    }

    @Test("a persistent attacker waits twice as long each time, never more than the maximum")
    func exponentialBounded() async throws {
        try await AbuseServer.with(limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "alice", device: device)
            for expected in [30, 60, 120, 120] {
                for _ in 0..<3 {
                    let reply = try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9")
                    expectError(reply, .unauthorized)
                }
                let blocked = try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9")
                Self.expectLimited(blocked, retryAfter: expected)
                api.clock.advance(by: TimeInterval(expected))
            }
            // Quiet for the longest block: the history is forgotten, the next block is the first one again.
            api.clock.advance(by: 120)
            for _ in 0..<3 {
                _ = try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9")
            }
            Self.expectLimited(
                try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9"), retryAfter: 30)
            api.clock.advance(by: 30)
            let signIn = try await api.signIn(
                app, user: "alice", assertion: try await api.assertion(app, user: "alice", device: device),
                from: "203.0.113.9")
            #expect(signIn.status == .ok, "\(signIn.text)")
        }
    }

    @Test("an address that fails for many users is blocked for all of them, registration included")
    func addressLimit() async throws {
        try await AbuseServer.with(limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            for index in 0..<4 {
                _ = try await api.register(app, user: "user\(index)", device: device)
            }
            for index in 0..<8 {
                let reply = try await api.failedSignIn(
                    app, user: "user\(index % 4)", device: device, from: "203.0.113.66")
                expectError(reply, .unauthorized)
            }
            let options = try await api.registrationOptions(app, user: "newcomer")
            let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
            let credential = try Device.make().create(creation, userVerified: true)
            let registration = try await api.send(
                .post, APIOperation.registrationVerify.path,
                json: .object([
                    "application_id": .string(app.id), "user_id": "newcomer", "credential": try .encoding(credential),
                ]), from: "203.0.113.66")
            Self.expectLimited(registration, retryAfter: 30)
            // The refused registration stored nothing: the same response registers from elsewhere.
            let elsewhere = try await api.send(
                .post, APIOperation.registrationVerify.path,
                json: .object([
                    "application_id": .string(app.id), "user_id": "newcomer", "credential": try .encoding(credential),
                ]), from: "198.51.100.7")
            #expect(elsewhere.status == .ok, "\(elsewhere.text)")
        }
    }

    @Test("guessing the admin token or API keys is throttled per address; the right secret never is")
    func credentialGuessing() async throws {
        try await AbuseServer.with(limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "grant")
            for guess in 0..<4 {
                let reply = try await api.send(
                    .get, APIOperation.listApplications.path, bearer: "umfa_admin_guess-\(guess)", from: "203.0.113.5")
                expectError(reply, .unauthorized, message: "Missing or invalid admin token")
            }
            let guess = try await api.send(
                .get, APIOperation.listApplications.path, bearer: "umfa_admin_guess-5", from: "203.0.113.5")
            Self.expectLimited(guess, retryAfter: 30)
            // Limits stop guessing, not owners (docs/contract.md §4): the valid token and key still work.
            let admin = try await api.send(
                .get, APIOperation.listApplications.path, bearer: TestServer.adminToken, from: "203.0.113.5")
            #expect(admin.status == .ok, "\(admin.text)")
            let apiKey = try await api.send(
                .post, APIOperation.createEnrollmentToken.path,
                json: .object(["application_id": .string(app.id), "user_id": "alice"]), bearer: app.apiKey,
                from: "203.0.113.5")
            #expect(apiKey.status == .created, "\(apiKey.text)")
            // The operator elsewhere is not affected.
            let operatorReply = try await api.send(
                .get, APIOperation.listApplications.path, bearer: TestServer.adminToken, from: "198.51.100.1")
            #expect(operatorReply.status == .ok)

            // Wrong API keys count the same way, from a second address.
            for guess in 0..<4 {
                let reply = try await api.send(
                    .post, APIOperation.validateToken.path,
                    json: .object(["application_id": .string(app.id), "user_id": "alice", "token": "x"]),
                    bearer: "umfa_ak_guess-\(guess)", from: "203.0.113.6")
                expectError(reply, .unauthorized, message: "The API key is not valid for this application")
            }
            let blocked = try await api.send(
                .post, APIOperation.createEnrollmentToken.path,
                json: .object(["application_id": .string(app.id), "user_id": "alice"]), bearer: "umfa_ak_guess-5",
                from: "203.0.113.6")
            Self.expectLimited(blocked, retryAfter: 30)
            #expect(!blocked.text.contains("umfa_et_"))
            let owner = try await api.send(
                .post, APIOperation.createEnrollmentToken.path,
                json: .object(["application_id": .string(app.id), "user_id": "alice"]), bearer: app.apiKey,
                from: "203.0.113.6")
            #expect(owner.status == .created, "\(owner.text)")
            api.clock.advance(by: 30)
            let after = try await api.send(
                .post, APIOperation.createEnrollmentToken.path,
                json: .object(["application_id": .string(app.id), "user_id": "alice"]), bearer: "umfa_ak_guess-6",
                from: "203.0.113.6")
            expectError(after, .unauthorized, message: "The API key is not valid for this application")
        }
    }

    @Test("an application backend relaying failed credential validations is not blocked (one address, many users)")
    func backendNotBlocked() async throws {
        try await AbuseServer.with(limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "alice", device: device)
            for _ in 0..<10 {
                var assertion = try await api.assertion(app, user: "alice", device: device)
                var signature = assertion.response.signature.bytes
                signature[signature.count - 1] ^= 0x01
                assertion.response.signature = .init(signature)
                let refused = try await api.send(
                    .post, APIOperation.validateToken.path,
                    json: .object([
                        "application_id": .string(app.id), "user_id": "alice", "token": try .encoding(assertion),
                        "token_type": "credential",
                    ]), bearer: app.apiKey, from: "192.0.2.10")
                expectError(refused, .unauthorized, containing: "MFA credential was invalid")
            }
            let valid = try await api.assertion(app, user: "alice", device: device)
            let accepted = try await api.send(
                .post, APIOperation.validateToken.path,
                json: .object([
                    "application_id": .string(app.id), "user_id": "alice", "token": try .encoding(valid),
                    "token_type": "credential",
                ]), bearer: app.apiKey, from: "192.0.2.10")
            #expect(accepted.status == .ok, "\(accepted.text)")
        }
    }

    @Test("limits come from UMFA_LIMIT_* and wrong values stop the start with a clear message")
    func environment() throws {
        var configuration = ServerConfiguration()
        try configuration.applyHardening(environment: [
            "UMFA_LIMIT_USER_FAILURES": "7", "UMFA_LIMIT_ADDRESS_FAILURES": "0", "UMFA_LIMIT_BLOCK_SECONDS": "5",
            "UMFA_TRUST_FORWARDED_FOR": "1", "UMFA_IDLE_TIMEOUT_SECONDS": "12", "UMFA_BODY_TIMEOUT_SECONDS": "3",
        ])
        #expect(configuration.abuseLimits.userFailures == 7)
        #expect(configuration.abuseLimits.addressFailures == 0)
        #expect(configuration.abuseLimits.baseBlock == .seconds(5))
        #expect(configuration.abuseLimits.credentialFailures == AbuseLimits().credentialFailures)
        #expect(configuration.trustForwardedFor)
        #expect(configuration.idleTimeout == .seconds(12))
        #expect(configuration.bodyReadTimeout == .seconds(3))
        #expect(throws: ConfigurationError.self) {
            try configuration.applyHardening(environment: ["UMFA_LIMIT_USER_FAILURES": "many"])
        }
        #expect(throws: ConfigurationError.self) {
            try configuration.applyHardening(environment: ["UMFA_BODY_TIMEOUT_SECONDS": "-1"])
        }
        #expect(throws: ConfigurationError.self) {
            try configuration.applyHardening(environment: ["UMFA_LIMIT_MAX_BLOCK_SECONDS": "1"])
        }
    }
}

@Suite("Abuse limits: the counter")
struct AbuseCounterTests {
    @Test("a flood of new addresses cannot grow the limiter past its bound, and blocked keys survive pruning")
    func boundedMemory() {
        let limits = AbuseLimits(
            userFailures: 2, window: .seconds(60), baseBlock: .seconds(30), maxBlock: .seconds(120), maxTrackedKeys: 100
        )
        let counter = FailureCounter(limit: 2, limits: limits)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        counter.recordFailure("attacker", now: start)
        #expect(counter.recordFailure("attacker", now: start) == 30)
        for index in 0..<1_000 {
            counter.recordFailure("flood-\(index)", now: start.addingTimeInterval(1))
        }
        #expect(counter.trackedKeys <= 100)
        #expect(counter.retryAfter("attacker", now: start.addingTimeInterval(2)) == 28)
    }

    @Test("a limit of 0 never blocks")
    func disabled() {
        let counter = FailureCounter(limit: 0, limits: AbuseLimits())
        let now = Date()
        for _ in 0..<100 { #expect(counter.recordFailure("k", now: now) == nil) }
        #expect(counter.retryAfter("k", now: now) == nil)
    }
}
