import Foundation
import Hummingbird
import Testing
import UMFAWebAuthn

@Suite("Demo routes (development application only)")
struct DemoRoutesTests {
    static let jwtPrefix = "Validate token failed with: MFA login JWT was invalid: Invalid JWT: "

    @Test("validate, list and delete with the user's login token; sign-in is refused after the delete")
    func signedInUserManagesPasskeys() async throws {
        try await DemoServer.with { api, development in
            let device = Device.make(origin: DemoServer.origin)
            let enrolled = try await api.register(development, user: "alice@example.com", device: device)
            let login = try await api.authenticate(development, user: "alice@example.com", device: device)

            let valid = try await api.demoValidate(user: "alice@example.com", token: login.token)
            #expect(valid.status == .ok, "\(valid.text)")
            #expect(valid["user_id"]?.stringValue == "alice@example.com")
            expectTraceID(valid, nil)
            let named = try await api.demoValidate(
                user: "alice@example.com", token: login.token, application: development.id)
            #expect(named.status == .ok, "\(named.text)")

            let listed = try await api.demo(.get, user: "alice@example.com", token: login.token)
            #expect(listed.status == .ok, "\(listed.text)")
            let credentials = try #require(listed["credentials"]?.arrayValue)
            #expect(credentials.count == 1)
            #expect(credentials.first?["credential_id"]?.stringValue == enrolled.credentialID)
            #expect(credentials.first?["created_at"]?.stringValue != nil)
            #expect(credentials.first?["last_used_at"]?.stringValue != nil, "the sign-in is shown as the last use")

            let removed = try await api.demo(
                .delete, user: "alice@example.com", credential: enrolled.credentialID, token: login.token)
            #expect(removed.status == .ok, "\(removed.text)")
            #expect(removed["removed"] == .bool(true))
            // The login token ends with the credential it signed in with (DESIGN.md §4).
            let after = try await api.demo(.get, user: "alice@example.com", token: login.token)
            expectError(after, .unauthorized, containing: "no longer registered")

            let assertion = try await api.assertion(development, user: nil, device: device)
            let refused = try await api.verifyAssertion(development, user: nil, credential: assertion)
            expectError(refused, .unauthorized, message: "Authentication failed")
        }
    }

    @Test("validate refuses garbage, expired, other users' and other applications' tokens in the error shape")
    func validateRefusals() async throws {
        let clock = TestClock()
        let server = DemoServer(clock: clock)
        defer { try? FileManager.default.removeItem(at: server.directory) }
        try await server.run { api, development in
            let development = try #require(development)
            let device = Device.make(origin: DemoServer.origin)
            let token = try await api.register(development, user: "alice", device: device).token
            let other = try await api.createApplication(policy: "open")
            let otherToken = try await api.register(other, user: "alice", device: Device.make()).token

            expectError(
                try await api.demoValidate(user: "alice", token: "not-a-jwt"), .unauthorized,
                message: Self.jwtPrefix + "the token is not a JWT")
            expectError(
                try await api.demoValidate(user: "bob", token: token), .unauthorized,
                message: Self.jwtPrefix + "the user_id claim does not match the user")
            expectError(
                try await api.demoValidate(user: "alice", token: otherToken), .unauthorized, containing: "application")
            expectError(
                try await api.demoValidate(user: "alice", token: otherToken, application: other.id), .forbidden,
                containing: "only the development application")
            expectError(
                try await api.demoValidate(user: "alice", token: token, application: "not-a-uuid"), .badRequest)
            expectError(try await api.post("/api/demo/validate-token", .object(["user_id": "alice"])), .badRequest)
            expectError(try await api.send(.post, "/api/demo/validate-token", raw: "[1, 2"), .badRequest)

            clock.advance(by: 301)
            expectError(try await api.demoValidate(user: "alice", token: token), .unauthorized, containing: "expired")
        }
    }

    @Test("list and delete need the path user's own valid login token of the development application")
    func credentialRouteRefusals() async throws {
        try await DemoServer.with { api, development in
            let alice = Device.make(origin: DemoServer.origin)
            let aliceCredential = try await api.register(development, user: "alice", device: alice)
            let bobToken = try await api.register(
                development, user: "bob", device: Device.make(origin: DemoServer.origin)
            )
            .token
            let other = try await api.createApplication(policy: "open")
            let otherToken = try await api.register(other, user: "alice", device: Device.make()).token

            expectError(try await api.demo(.get, user: "alice", token: nil), .unauthorized)
            expectError(try await api.demo(.get, user: "alice", token: "garbage"), .unauthorized)
            expectError(try await api.demo(.get, user: "alice", token: bobToken), .unauthorized, containing: "user")
            expectError(try await api.demo(.get, user: "alice", token: otherToken), .unauthorized)
            expectError(
                try await api.demo(.delete, user: "alice", credential: aliceCredential.credentialID, token: bobToken),
                .unauthorized)
            // Bob's own path does not reach Alice's credential.
            expectError(
                try await api.demo(.delete, user: "bob", credential: aliceCredential.credentialID, token: bobToken),
                .notFound)
            expectError(try await api.demo(.delete, user: "bob", credential: "%21%21", token: bobToken), .badRequest)

            let aliceToken = try await api.authenticate(development, user: "alice", device: alice).token
            let still = try await api.demo(.get, user: "alice", token: aliceToken)
            #expect(still["credentials"]?.arrayValue?.count == 1, "nothing was deleted by the refused requests")
        }
    }

    @Test("the development application is recognised after a restart; --no-default-app removes the demo routes")
    func persistenceAndSwitch() async throws {
        let server = DemoServer()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let (id, token) = try await server.run { api, development in
            let development = try #require(development)
            let token = try await api.register(
                development, user: "alice", device: Device.make(origin: DemoServer.origin)
            ).token
            return (development.id, token)
        }
        try await server.run { api, development in
            #expect(development == nil, "a restart creates no second development application")
            #expect(try await api.demoValidate(user: "alice", token: token).status == .ok)
            let page = try await api.send(.get, "/")
            #expect(page.text.contains("content=\"\(id)\""))
        }
        try await server.run(developmentApplication: false, demoRoutes: false) { api, _ in
            #expect(try await api.demoValidate(user: "alice", token: token).status == .notFound)
            #expect(try await api.demo(.get, user: "alice", token: token).status == .notFound)
            let page = try await api.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.text.contains("name=\"umfa-development-application\" content=\"\""))
        }
    }

    @Test("a server without a development application refuses the demo routes with 403")
    func noDevelopmentApplication() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let token = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice")
            ).token
            expectError(try await api.demoValidate(user: "alice", token: token), .forbidden)
            expectError(try await api.demo(.get, user: "alice", token: token), .forbidden)
        }
    }
}
