import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAWebAuthn

@Suite("Abuse: replay under concurrency")
struct AbuseConcurrencyTests {
    @Test("the same assertion sent 50 times at once succeeds exactly once; the rest are 401; nothing else changes")
    func fiftyConcurrentReplays() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "carol", device: device)
            let assertion = try await api.assertion(app, user: "carol", device: device)
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await api.verifyAssertion(app, user: "carol", credential: assertion) }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            let statuses = replies.map(\.status.code)
            #expect(replies.filter { $0.status == .ok }.count == 1, "\(statuses)")
            #expect(replies.filter { $0.status == .unauthorized }.count == 49, "\(statuses)")
            for reply in replies where reply.status == .unauthorized {
                expectError(reply, .unauthorized, message: "Authentication failed")
            }
            // One token was issued, and the credential signs in again as usual.
            #expect(Set(replies.compactMap { $0["token"]?.stringValue }).count == 1)
            let list = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "carol"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(list["credentials"]?.arrayValue?.count == 1)
            _ = try await api.authenticate(app, user: "carol", device: device)
        }
    }
}
