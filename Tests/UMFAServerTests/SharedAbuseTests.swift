import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFAServer

/// Two instances on one PostgreSQL database share one set of abuse counters (docs/contract.md §4):
/// spreading attempts over instances does not multiply an attacker's budget.
@Suite("Abuse limits shared by instances on PostgreSQL")
struct SharedAbuseTests {
    static let limits = AbuseLimitTests.limits

    @Test("failed sign-ins split over two instances block the user from that address on both")
    func failuresShared() async throws {
        try await InstancePair.with(limits: Self.limits) { a, b in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            _ = try await a.register(app, user: "alice", device: device)
            // userFailures is 3: one instance alone would allow 3 more on the other.
            for api in [a, b, a] {
                expectError(
                    try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9"), .unauthorized)
            }
            for api in [a, b] {
                let valid = try await api.assertion(app, user: "alice", device: device)
                AbuseLimitTests.expectLimited(
                    try await api.signIn(app, user: "alice", assertion: valid, from: "203.0.113.9"), retryAfter: 30)
            }
            // Another address is not affected, and a success there leaves the block in place.
            let elsewhere = try await b.signIn(
                app, user: "alice", assertion: try await b.assertion(app, user: "alice", device: device),
                from: "198.51.100.7")
            #expect(elsewhere.status == .ok, "\(elsewhere.text)")
            // The block ends for both at once; a success then forgets the failures, on both.
            a.clock.advance(by: 31)
            let back = try await a.signIn(
                app, user: "alice", assertion: try await a.assertion(app, user: "alice", device: device),
                from: "203.0.113.9")
            #expect(back.status == .ok, "\(back.text)")
            for api in [b, a] {
                expectError(
                    try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9"), .unauthorized)
            }
            let stillAllowed = try await b.signIn(
                app, user: "alice", assertion: try await b.assertion(app, user: "alice", device: device),
                from: "203.0.113.9")
            #expect(
                stillAllowed.status == .ok, "two failures after the reset stay under the limit: \(stillAllowed.text)")
        }
    }

    @Test("repeat blocks double across instances, up to the maximum")
    func strikesShared() async throws {
        try await InstancePair.with(limits: Self.limits) { a, b in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            _ = try await a.register(app, user: "alice", device: device)
            for (round, expected) in [30, 60, 120, 120].enumerated() {
                let (first, second) = round.isMultiple(of: 2) ? (a, b) : (b, a)
                for api in [first, second, first] {
                    expectError(
                        try await api.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9"),
                        .unauthorized)
                }
                AbuseLimitTests.expectLimited(
                    try await second.failedSignIn(app, user: "alice", device: device, from: "203.0.113.9"),
                    retryAfter: expected)
                a.clock.advance(by: TimeInterval(expected + 1))
            }
        }
    }

    @Test("wrong API keys count on both instances; the valid admin token and key still pass")
    func credentialGuessesShared() async throws {
        try await InstancePair.with(limits: Self.limits) { a, b in
            let app = try await a.createApplication(policy: "grant")
            let tokenPath = APIOperation.createEnrollmentToken.path
            let body: JSONValue = .object(["application_id": .string(app.id), "user_id": "alice"])
            // credentialFailures is 4, two on each instance.
            for api in [a, b, a, b] {
                expectError(
                    try await api.send(.post, tokenPath, json: body, bearer: "umfa_sk_wrong", from: "203.0.113.5"),
                    .unauthorized)
            }
            for api in [a, b] {
                AbuseLimitTests.expectLimited(
                    try await api.send(.post, tokenPath, json: body, bearer: "umfa_sk_wrong", from: "203.0.113.5"),
                    retryAfter: 30)
                let owner = try await api.send(.post, tokenPath, json: body, bearer: app.apiKey, from: "203.0.113.5")
                #expect(owner.status == .created || owner.status == .ok, "\(owner.text)")
                let admin = try await api.send(
                    .get, APIOperation.listApplications.path, bearer: TestServer.adminToken, from: "203.0.113.5")
                #expect(admin.status == .ok, "\(admin.text)")
            }
        }
    }
}
