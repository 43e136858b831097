import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import UMFAServer
import UMFAStorage
import UMFATestSupport

/// The throwaway PostgreSQL database of scripts/with-postgres.sh, one fresh schema per test.
/// Without it the multi-instance tests fail (they are never skipped).
enum SharedDatabase {
    /// The database URL; throws a failure naming the script when it is not set.
    static func baseURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["UMFA_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw TestFailure(
                "UMFA_TEST_POSTGRES_URL is not set: the multi-instance tests need PostgreSQL; "
                    + "run through scripts/with-postgres.sh (scripts/with-postgres.sh swift test --skip-build)")
        }
        return url
    }

    /// Creates `t_<random>` and returns a URL selecting it.
    static func makeSchema() async throws -> (url: String, schema: String) {
        let base = try baseURL()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await psql("CREATE SCHEMA \(schema)")
        // A generous connect timeout: with the whole test suite running on a small machine, a
        // connection can take seconds to come.
        return (base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)&connect_timeout=30", schema)
    }

    /// Drops a schema made by ``makeSchema()``.
    static func dropSchema(_ schema: String) async {
        try? await psql("SET client_min_messages = warning; DROP SCHEMA \(schema) CASCADE")
    }

    /// Runs one SQL command with the cluster's psql on the test database.
    static func psql(_ sql: String) async throws {
        guard let psql = ProcessInfo.processInfo.environment["UMFA_TEST_PSQL"], !psql.isEmpty else {
            throw TestFailure("UMFA_TEST_PSQL is not set: run through scripts/with-postgres.sh")
        }
        let database = URLComponents(string: try baseURL())?.path.dropFirst() ?? ""
        try await Shell.run("\(psql) -d '\(database)' -v ON_ERROR_STOP=1 -qc \"\(sql)\" >/dev/null")
    }
}

/// Two UMFA server instances, as behind a load balancer: one PostgreSQL schema, one master
/// key, one admin token, separate data directories, one test clock.
struct InstancePair: Sendable {
    let url: String
    let masterKey: String
    let clock: TestClock
    let directories: [URL]
    /// Abuse limits for both instances, with `X-Forwarded-For` trusted; `nil` keeps the defaults.
    var limits: AbuseLimits?

    init(url: String, clock: TestClock = TestClock(), limits: AbuseLimits? = nil) {
        self.url = url
        self.clock = clock
        self.limits = limits
        masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        directories = (0..<2).map { _ in
            FileManager.default.temporaryDirectory.appendingPathComponent("umfa-instance-\(UUID().uuidString)")
        }
    }

    func configuration(_ index: Int) -> ServerConfiguration {
        let clock = clock
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: directories[index], database: .postgres(url: url),
            adminToken: TestServer.adminToken, masterKey: masterKey, createDefaultApplication: index == 0,
            now: { clock.now })
        configuration.bodyReadTimeout = ServerTransport.patientTimeout
        if let limits {
            configuration.abuseLimits = limits
            configuration.trustForwardedFor = true
        }
        return configuration
    }

    /// Builds both instances (at the same time, as a deployment starts them) and runs `body`
    /// with a client of each. With `startPatience`, a start that finds the database unavailable
    /// (a cluster just started on a machine busy with the suite) is tried again for that long:
    /// set-up, not the behaviour under test.
    /// - Parameter live: serve both over loopback TCP instead of the router alone (for routes
    ///   that answer only callers on this machine, such as `/metrics`).
    func run(
        startPatience: Duration = .zero, live: Bool = false, _ body: @Sendable (API, API) async throws -> Void
    ) async throws {
        var quiet = Logger(label: "umfa-test")
        quiet.logLevel = .critical
        let logger = quiet
        let (a, b) = try await start(logger: logger, until: ContinuousClock.now + startPatience)
        let (clock, directories) = (clock, directories)
        try await a.exercise(live ? .live : .router) { clientA in
            try await b.exercise(live ? .live : .router) { clientB in
                try await body(
                    API(client: clientA, clock: clock, directory: directories[0]),
                    API(client: clientB, clock: clock, directory: directories[1]))
            }
        }
    }

    /// Both instances, built at the same time; tried again while the database is unavailable
    /// until `deadline`.
    private func start(logger: Logger, until deadline: ContinuousClock.Instant) async throws -> (
        some ApplicationProtocol, some ApplicationProtocol
    ) {
        while true {
            do {
                async let first = buildApplication(configuration: configuration(0), logger: logger)
                async let second = buildApplication(configuration: configuration(1), logger: logger)
                return (try await first.0, try await second.0)
            } catch let error as StoreError where error.code == .unavailable && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// A fresh schema and pair for one test, removed afterwards.
    static func with(
        limits: AbuseLimits? = nil, live: Bool = false, _ body: @Sendable (API, API) async throws -> Void
    ) async throws {
        let (url, schema) = try await SharedDatabase.makeSchema()
        let pair = InstancePair(url: url, limits: limits)
        do {
            try await pair.run(live: live, body)
        } catch {
            await pair.remove(schema)
            throw error
        }
        await pair.remove(schema)
    }

    func remove(_ schema: String) async {
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
        await SharedDatabase.dropSchema(schema)
    }
}
