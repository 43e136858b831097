import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import UMFAServer
import UMFATestSupport
import UMFAWebAuthn

/// A server as `umfa serve` starts it on a fresh database: with the development application
/// (origin `http://localhost:8080`), which the demo page names unless turned off.
struct DemoServer: Sendable {
    static let origin = "http://localhost:8080"

    let directory: URL
    let clock: TestClock

    init(clock: TestClock = TestClock()) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-demo-\(UUID().uuidString)")
        self.clock = clock
    }

    func configuration(developmentApplication: Bool, demoRoutes: Bool) -> ServerConfiguration {
        let clock = clock
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: directory, adminToken: TestServer.adminToken,
            createDefaultApplication: developmentApplication, publicOrigin: Self.origin, now: { clock.now })
        configuration.demoRoutes = demoRoutes
        configuration.bodyReadTimeout = ServerTransport.patientTimeout
        return configuration
    }

    /// Builds (or, on the same directory, restarts) the server and runs `body` with the
    /// development application as the first start reported it (`nil` on later starts).
    func run<Value: Sendable>(
        developmentApplication: Bool = true, demoRoutes: Bool = true,
        _ body: @Sendable (API, TestApplication?) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "umfa-demo-test")
        logger.logLevel = .warning
        let (app, report) = try await buildApplication(
            configuration: configuration(developmentApplication: developmentApplication, demoRoutes: demoRoutes),
            logger: logger)
        let development = report.defaultApplicationID.flatMap { id in
            report.defaultApplicationAPIKey.map {
                TestApplication(id: id.uuidString.lowercased(), apiKey: $0, settings: .null)
            }
        }
        let (clock, directory) = (clock, directory)
        return try await app.exercise(.router) { client in
            try await body(API(client: client, clock: clock, directory: directory), development)
        }
    }

    /// A fresh server with the development application, removed afterwards.
    static func with<Value: Sendable>(
        _ body: @Sendable (API, TestApplication) async throws -> Value
    ) async throws -> Value {
        let server = DemoServer()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        return try await server.run { api, development in
            guard let development else { throw TestFailure("no development application was created") }
            return try await body(api, development)
        }
    }
}
