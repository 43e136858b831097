import Foundation
import Testing
import UMFAContract

@testable import UMFA

/// The UMFA module's documented Swift API (docs/sdk-products.md, UMFA rows), called as the
/// document shows it, against a live server.
@Suite("Compatibility: the UMFA module's documented API")
struct UMFACompatibilityTests {
    typealias Answer = (data: [String: String], metadata: [String: String]?, error: ZSMError?)

    /// Waits for one of the documented `(data, metadata, error)` completions; `data` as text.
    static func answer(_ start: (@escaping UMFAClient.Completion) -> Void) async -> Answer {
        await withCheckedContinuation { continuation in
            start { data, metadata, error in
                let text = (data ?? [:]).mapValues { "\($0)" }
                continuation.resume(returning: (text, metadata, error))
            }
        }
    }

    @Test("UMFAClient.versionString is major.minor.patch")
    func versionString() {
        let parts = UMFAClient.versionString.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(UMFAClient.versionString)")
    }

    @Test("checkEnrollment, enroll, authenticate, validate-token, unenroll with the documented completions")
    func documentedSequence() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = try ZSMConfig(json: [
                "host_url": server.origin, "application_id": app.id, "application_environment": "test",
                "storage_location": storage.url.path, "retry_count": 0,
            ])
            let client = UMFAClient(config)

            let before = await Self.answer { client.checkEnrollment(userId: "ana", completion: $0) }
            #expect(before.error == nil && before.data["enrolled"] == "false")
            #expect(before.metadata?["application_id"] == app.id)

            let enrolled = await Self.answer { client.enroll(userId: "ana", completion: $0) }
            #expect(enrolled.error == nil)
            let enrollToken = try #require(enrolled.data["token"])
            #expect(try await server.validate(app, user: "ana", token: enrollToken).status == 200)

            let after = await Self.answer { client.checkEnrollment(userId: "ana", completion: $0) }
            #expect(after.data["enrolled"] == "true")

            let signedIn = await Self.answer { client.authenticate(userId: "ana", completion: $0) }
            #expect(signedIn.error == nil && signedIn.metadata?["trace_id"] != nil)
            let token = try #require(signedIn.data["token"])
            let validated = try await server.validate(app, user: "ana", token: token)
            #expect(validated.status == 200 && validated["user_id"]?.stringValue == "ana")
            #expect(validated["trace_id"]?.stringValue != nil)
            #expect(try await server.validate(app, user: "someone else", token: token).status == 401)

            let removed = await withCheckedContinuation { continuation in
                client.unenroll(userId: "ana") { continuation.resume(returning: $0) }
            }
            #expect(removed)
            let gone = await Self.answer { client.authenticate(userId: "ana", completion: $0) }
            #expect(gone.error?.code == .notEnrolled)
        }
    }

    @Test("UMFAClient(config, relyingParty:) performs the ceremonies through the given relying party")
    func customRelyingParty() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let relyingParty = UnlimitedRegistrations(base: UMFAHTTPRelyingParty(config: config))
            let client = UMFAClient(config, relyingParty: relyingParty)
            let enrolled = await Self.answer { client.enroll(userId: "bo", completion: $0) }
            #expect(enrolled.error == nil)
            let signedIn = await Self.answer { client.authenticate(userId: "bo", completion: $0) }
            #expect(signedIn.error == nil && signedIn.data["user_id"] == "bo")
        }
    }
}
