import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFAServer

/// docs/contract.md §4: limits stop guessing, not owners; limiter keys are bounded and swept;
/// the options routes are limited per address; bodies are UTF-8 JSON throughout.
@Suite("Abuse guard: owners never locked out, options limited per address, limiter keys, sweep, UTF-8 bodies")
struct AbuseGuardTests {
    @Test("failed sign-ins and wrong API keys from one address never lock out the valid admin token")
    func ownersAreNotLockedOut() async throws {
        let limits = AbuseLimits(userFailures: 40, addressFailures: 40, credentialFailures: 3, window: .seconds(60))
        try await AbuseServer.with(limits: limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "alice", device: device)
            for _ in 0..<40 {
                _ = try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.40")
            }
            for guess in 0..<5 {
                _ = try await api.send(
                    .post, APIOperation.validateToken.path,
                    json: .object(["application_id": .string(app.id), "user_id": "alice", "token": "x"]),
                    bearer: "umfa_ak_wrong-\(guess)", from: "203.0.113.40")
            }
            let admin = try await api.send(
                .get, APIOperation.listApplications.path, bearer: TestServer.adminToken, from: "203.0.113.40")
            #expect(admin.status == .ok, "\(admin.text)")
        }
    }

    @Test("options routes are limited per address: 429 past the limit, other addresses unaffected")
    func optionsRateLimited() async throws {
        let limits = AbuseLimits(optionsRequests: 3, window: .seconds(60))
        try await AbuseServer.with(limits: limits) { api in
            let app = try await api.createApplication(policy: "open")
            let body: JSONValue = .object(["application_id": .string(app.id), "user_id": "ghost"])
            for _ in 0..<3 {
                let reply = try await api.send(
                    .post, APIOperation.authenticationOptions.path, json: body, from: "203.0.113.50")
                #expect(reply.status == .ok)
            }
            let limited = try await api.send(
                .post, APIOperation.authenticationOptions.path, json: body, from: "203.0.113.50")
            #expect(limited.status == .tooManyRequests)
            let registration = try await api.send(
                .post, APIOperation.registrationOptions.path, json: body, from: "203.0.113.50")
            #expect(registration.status == .tooManyRequests)
            let elsewhere = try await api.send(
                .post, APIOperation.authenticationOptions.path, json: body, from: "198.51.100.50")
            #expect(elsewhere.status == .ok)
        }
    }

    @Test("limiter keys have one size whatever the user id, and Unicode-equal ids get different keys")
    func limiterKeys() {
        let short = AbuseGuard.key("app", "a", "203.0.113.1")
        let long = AbuseGuard.key("app", "e" + String(repeating: "\u{301}", count: 5_000), "203.0.113.1")
        #expect(short.utf8.count == 32 && long.utf8.count == 32)
        #expect(AbuseGuard.key("app", "jos\u{e9}", "x") != AbuseGuard.key("app", "jose\u{301}", "x"))
        #expect(AbuseGuard.key("ab", "c") != AbuseGuard.key("a", "bc"), "parts are length-prefixed")
    }

    @Test("the sweep forgets keys whose window and blocks have passed, and keeps blocked ones")
    func sweep() async throws {
        let clock = TestClock()
        let limits = AbuseLimits(
            userFailures: 2, addressFailures: 100, window: .seconds(60), baseBlock: .seconds(30),
            maxBlock: .seconds(120))
        let guardian = AbuseGuard(limits: limits, now: { clock.now }, logger: .init(label: "sweep"))
        let caller = Caller(traceID: "t", clientAddress: "203.0.113.7", bearer: nil)
        for index in 0..<50 {
            try? guardian.countOptionsRequest(Caller(traceID: "t", clientAddress: "198.51.100.\(index)", bearer: nil))
        }
        await #expect(throws: ServiceError.self) {
            try await guardian.refuseCredential(caller, ServiceError.unauthenticated("no"))
        }
        #expect(guardian.trackedKeys == 51)
        clock.advance(by: 121)
        try await guardian.sweep()
        #expect(guardian.trackedKeys == 0)
    }

    @Test("a sweep soon after a block ended keeps the key's strikes: the next block is doubled")
    func sweepKeepsStrikes() async throws {
        let clock = TestClock()
        let limits = AbuseLimits(
            userFailures: 100, addressFailures: 100, credentialFailures: 2, window: .seconds(60),
            baseBlock: .seconds(30), maxBlock: .seconds(120))
        let guardian = AbuseGuard(limits: limits, now: { clock.now }, logger: .init(label: "sweep"))
        let caller = Caller(traceID: "t", clientAddress: "203.0.113.8", bearer: nil)
        func blockSeconds() async -> Int? {
            do {
                try await guardian.refuseCredential(caller, ServiceError.unauthenticated("no"))
            } catch let error as ServiceError {
                if case .rateLimited(let seconds) = error.code { return seconds }
            } catch {}
            return nil
        }
        #expect(await blockSeconds() == nil)
        #expect(await blockSeconds() == nil)
        #expect(await blockSeconds() == 30)
        // The last failure is older than the longest block, but the block ended only 91 s ago.
        clock.advance(by: 121)
        try await guardian.sweep()
        #expect(await blockSeconds() == nil)
        #expect(await blockSeconds() == nil)
        #expect(await blockSeconds() == 60)
    }

    @Test("invalid UTF-8 or NUL bytes anywhere in a body are 400, even in members the route ignores")
    func utf8Throughout() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let valid = #"{"application_id":"\#(app.id)","user_id":"alice","ignored":"ok"}"#
            #expect(try await api.send(.post, APIOperation.authenticationOptions.path, raw: valid).status == .ok)
            for bad in [
                Array(#"{"application_id":"\#(app.id)","user_id":"alice","ignored":""#.utf8) + [0xC3, 0x28]
                    + Array(#""}"#.utf8),
                Array(#"{"application_id":"\#(app.id)","user_id":"alice","ignored":""#.utf8) + [0xED, 0xA0, 0x80]
                    + Array(#""}"#.utf8),
                Array(#"{"application_id":"\#(app.id)","user_id":"alice"}"#.utf8) + [0x00],
            ] {
                let reply = try await api.sendBytes(.post, APIOperation.authenticationOptions.path, bytes: bad)
                expectError(reply, .badRequest, message: "The request body is not valid UTF-8 JSON")
            }
        }
    }
}

extension API {
    /// A request whose body is exactly `bytes`.
    func sendBytes(_ method: HTTPRequest.Method, _ path: String, bytes: [UInt8]) async throws -> Reply {
        let response = try await client.execute(
            uri: path, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: bytes))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }
}
