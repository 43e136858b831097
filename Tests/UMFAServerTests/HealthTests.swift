import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFAServer
import UMFATestSupport

@Suite("Server smoke")
struct HealthTests {
    /// A configuration on a new data directory (the caller removes it), and a quiet logger.
    static func freshServer() -> (URL, ServerConfiguration, Logger) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-test-\(UUID().uuidString)")
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(port: 0, dataDirectory: directory)
        configuration.bodyReadTimeout = ServerTransport.patientTimeout
        return (directory, configuration, logger)
    }

    @Test("a fresh data directory: health ok, admin token generated once, an open development application")
    func freshStart() async throws {
        let (directory, configuration, logger) = Self.freshServer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (app, report) = try await buildApplication(configuration: configuration, logger: logger)
        let adminToken = try #require(report.generatedAdminToken)
        #expect(adminToken.hasPrefix("umfa_admin_"))
        let applicationID = try #require(report.defaultApplicationID).uuidString.lowercased()
        let apiKey = try #require(report.defaultApplicationAPIKey)
        #expect(report.openApplications == ["Development (\(applicationID))"])
        try await app.exercise(.router) { client in
            let api = API(client: client, clock: TestClock(), directory: directory)
            let health = try await api.send(.get, "/health")
            #expect(health.status == .ok)
            #expect(health["status"]?.stringValue == "ok")
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": applicationID]), bearer: adminToken)
            #expect(shown["enrollment_policy"]?.stringValue == "open")
            #expect(shown["rp_id"]?.stringValue == "localhost")
            let grant = try await api.post(
                APIOperation.createEnrollmentToken.path,
                .object(["application_id": .string(applicationID), "user_id": "u"]),
                bearer: apiKey)
            #expect(grant.status == .created)
        }

        // The application owns the store and closes it when it stops, so it is run, not dropped.
        let (restarted, second) = try await buildApplication(configuration: configuration, logger: logger)
        #expect(second.generatedAdminToken == nil)
        #expect(second.defaultApplicationID == nil)
        #expect(second.openApplications.count == 1)
        try await restarted.exercise(.router) { client in
            let shown = try await API(client: client, clock: TestClock(), directory: directory)
                .send(.get, APIOperation.getApplication.path(["id": applicationID]), bearer: adminToken)
            #expect(shown.status == .ok)
        }
    }

    @Test(
        "readiness: 200 while the SQLite file takes writes, 503 once it is moved away, 200 when it is back; 503 draining"
    )
    func readiness() async throws {
        let (directory, configuration, logger) = Self.freshServer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (app, report) = try await buildApplication(configuration: configuration, logger: logger)
        let drain = try #require(report.drain)
        let file = directory.appendingPathComponent("umfa.sqlite")
        let moved = directory.appendingPathComponent("moved.sqlite")
        try await app.exercise(.router) { client in
            let api = API(client: client, clock: TestClock(), directory: directory)
            /// Asks until the answer is `status` (the database is asked at most once a second).
            func readiness(becomes status: HTTPResponse.Status) async throws -> Reply {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    let answer = try await api.send(.get, "/health/ready")
                    if answer.status == status || ContinuousClock.now > deadline { return answer }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let ready = try await api.send(.get, "/health/ready")
            #expect(ready.status == .ok)
            #expect(ready["status"]?.stringValue == "ok")

            try FileManager.default.moveItem(at: file, to: moved)
            let gone = try await readiness(becomes: .serviceUnavailable)
            #expect(gone.status == .serviceUnavailable)
            #expect(gone["message"]?.stringValue == "not ready: the database cannot be reached or written")
            #expect(try await api.send(.get, "/health").status == .ok)
            try FileManager.default.moveItem(at: moved, to: file)
            #expect(try await readiness(becomes: .ok).status == .ok)

            drain.readiness.startDraining()
            let draining = try await api.send(.get, "/health/ready")
            #expect(draining.status == .serviceUnavailable)
            #expect(draining["message"]?.stringValue == "not ready: the server is shutting down")
        }
    }
}
