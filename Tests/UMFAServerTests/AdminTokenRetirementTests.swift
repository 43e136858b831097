import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFAServer
import UMFATestSupport

/// A generated admin token, once replaced by `UMFA_ADMIN_TOKEN`, never comes
/// back (docs/operators/configuration.md, "The admin token").
@Suite("Admin token retirement")
struct AdminTokenRetirementTests {
    static let configuredToken = "umfa-configured-admin-token-0123456789"

    @Test(
        "a generated token replaced by UMFA_ADMIN_TOKEN stays refused after a restart without it; a fresh one is shown once",
        arguments: [ServerTransport.router, .live])
    func replacedGeneratedTokenStaysRetired(transport: ServerTransport) async throws {
        let server = TestServer()
        defer { server.remove() }
        var generated = server
        generated.adjust = { $0.adminToken = nil }
        var configured = server
        configured.adjust = { $0.adminToken = Self.configuredToken }

        // First start without the variable: T0 is generated, shown once and accepted.
        let first = try await Self.start(generated, transport) { api, report async throws in
            let token = try #require(report.generatedAdminToken)
            #expect(try await Self.adminStatus(api, token) == .ok)
            return token
        }
        // The operator sets UMFA_ADMIN_TOKEN=T1: T1 is accepted, T0 refused.
        try await Self.start(configured, transport) { api, report async throws in
            #expect(report.generatedAdminToken == nil)
            #expect(try await Self.adminStatus(api, Self.configuredToken) == .ok)
            #expect(try await Self.adminStatus(api, first) == .unauthorized)
        }
        // Restarted without the variable: T0 stays refused (the attack), T1 is gone with its
        // variable, and a fresh token is generated and shown once.
        let fresh = try await Self.start(generated, transport) { api, report async throws in
            #expect(try await Self.adminStatus(api, first) == .unauthorized, "the replaced token came back")
            #expect(try await Self.adminStatus(api, Self.configuredToken) == .unauthorized)
            let fresh = try #require(report.generatedAdminToken, "no admin token is in force")
            #expect(fresh != first)
            #expect(try await Self.adminStatus(api, fresh) == .ok)
            return fresh
        }
        // The fresh token is stored hashed and kept, like any generated token.
        try await Self.start(generated, transport) { api, report async throws in
            #expect(report.generatedAdminToken == nil)
            #expect(try await Self.adminStatus(api, fresh) == .ok)
            #expect(try await Self.adminStatus(api, first) == .unauthorized)
        }
    }

    @Test("a configured token alone, restarted without it, never revives a token: the first generated one is new")
    func configuredFirstThenGenerated() async throws {
        let server = TestServer()
        defer { server.remove() }
        var generated = server
        generated.adjust = { $0.adminToken = nil }
        try await server.run { api async throws in
            #expect(try await Self.adminStatus(api, TestServer.adminToken) == .ok)
        }
        try await Self.start(generated, .router) { api, report async throws in
            let token = try #require(report.generatedAdminToken)
            #expect(try await Self.adminStatus(api, token) == .ok)
            #expect(try await Self.adminStatus(api, TestServer.adminToken) == .unauthorized)
        }
    }

    /// Builds the server as `umfa serve` would and runs `body` with the start-up report.
    @discardableResult
    static func start<Value: Sendable>(
        _ server: TestServer, _ transport: ServerTransport, _ body: @Sendable (API, StartupReport) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, report) = try await buildApplication(configuration: server.configuration, logger: logger)
        return try await app.exercise(transport) { client in
            try await body(API(client: client, clock: server.clock, directory: server.directory), report)
        }
    }

    static func adminStatus(_ api: API, _ token: String) async throws -> HTTPResponse.Status {
        try await api.send(.get, APIOperation.listApplications.path, bearer: token).status
    }
}
