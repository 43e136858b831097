import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import UMFAServer
import UMFATestSupport

/// The shared hand-moved clock, by its short name in this target.
typealias TestClock = UMFATestSupport.TestClock

/// A UMFA server on a temporary data directory with a known admin token and a test clock.
/// Building it again on the same directory is a restart.
struct TestServer: Sendable {
    static let adminToken = "umfa-test-admin-token-0123456789abcdef"

    let directory: URL
    let clock: TestClock
    /// Changes to the configuration beyond the defaults below.
    var adjust: @Sendable (inout ServerConfiguration) -> Void = { _ in }

    init(clock: TestClock = TestClock()) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-test-\(UUID().uuidString)")
        self.clock = clock
    }

    var configuration: ServerConfiguration {
        let clock = clock
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: directory, adminToken: Self.adminToken, createDefaultApplication: false,
            now: { clock.now })
        // Tests that are not about a timeout never trip one on a busy machine.
        configuration.bodyReadTimeout = ServerTransport.patientTimeout
        configuration.idleTimeout = ServerTransport.patientTimeout
        adjust(&configuration)
        return configuration
    }

    /// Builds the application and runs `body` against it, by router or over a real socket.
    func run<Value: Sendable>(
        _ setup: ServerTransport = .router, _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        let (clock, directory) = (clock, directory)
        return try await app.exercise(setup) { client in
            try await body(API(client: client, clock: clock, directory: directory))
        }
    }

    /// Removes the data directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A fresh server for one test: built, run, and its directory removed afterwards.
    static func with<Value: Sendable>(
        _ setup: ServerTransport = .router, clock: TestClock = TestClock(),
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let server = TestServer(clock: clock)
        defer { server.remove() }
        return try await server.run(setup, body)
    }
}
