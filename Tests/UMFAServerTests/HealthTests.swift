import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAServer

@Suite("Server smoke")
struct HealthTests {
    @Test("GET /health answers ok on a fresh SQLite data directory")
    func health() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ServerConfiguration(port: 0, dataDirectory: directory)
        let (app, report) = try await buildApplication(configuration: configuration, logger: Logger(label: "test"))
        #expect(report.generatedAdminToken != nil)
        try await app.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"ok\""))
            }
        }
    }
}
