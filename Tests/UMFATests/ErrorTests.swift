import Foundation
import Testing
import UMFA

@Suite("Network, server and configuration errors")
struct ErrorTests {
    static let someApplication = "6f1c2b9e-8d4a-4c3e-9b7a-2e5d1f0a3c48"

    static func config(port: Int, path: String = "", retries: Int) throws -> (ZSMConfig, DeviceStorage) {
        let storage = DeviceStorage()
        var config = ZSMConfig(
            hostURL: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")), applicationId: someApplication)
        config.storageLocation = storage.url
        config.retryCount = retries
        config.timeout = 5
        return (config, storage)
    }

    @Test("a server that hangs up is a networkError to retry, after retryCount + 1 attempts")
    func networkErrorWithRetries() async throws {
        let listener = try TinyListener(.hangUp)
        defer { listener.stop() }
        let (config, storage) = try Self.config(port: listener.port, retries: 2)
        defer { storage.remove() }
        let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "mia") }
        #expect(error?.code == .networkError)
        #expect(error?.recovery == .retry)
        #expect(error?.message == "cannot reach 127.0.0.1")
        #expect(listener.requests == Array(repeating: "POST /api/umfa/registration/options HTTP/1.1", count: 3))
        #expect(try storage.keyFiles().isEmpty)

        let closed = try Self.config(port: try TinyListener.closedPort(), retries: 0)
        defer { closed.1.remove() }
        let refused = await #expect(throws: ZSMError.self) { try await UMFAClient(closed.0).enroll(userId: "mia") }
        #expect(refused?.code == .networkError)
    }

    @Test("a 503 is retried and reported as a serverError to retry, with the server's trace id; a path prefix is kept")
    func serverErrorWithRetries() async throws {
        let listener = try TinyListener(
            .answer(status: 503, body: #"{"status":503,"trace_id":"server-trace-503","message":"Maintenance"}"#))
        defer { listener.stop() }
        let (config, storage) = try Self.config(port: listener.port, path: "/mfa", retries: 1)
        defer { storage.remove() }
        let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "ned") }
        #expect(error?.code == .serverError)
        #expect(error?.recovery == .retry)
        #expect(error?.httpStatus == 503)
        #expect(error?.message == "Maintenance")
        #expect(error?.traceId == "server-trace-503")
        #expect(listener.requests == Array(repeating: "POST /mfa/api/umfa/registration/options HTTP/1.1", count: 2))
    }

    @Test("a 401 is verificationFailed with the server's trace id and message, and is not retried")
    func unauthorizedAnswer() async throws {
        let listener = try TinyListener(
            .answer(status: 401, body: #"{"status":401,"trace_id":"server-trace-401","message":"Nope"}"#))
        defer { listener.stop() }
        let (config, storage) = try Self.config(port: listener.port, retries: 3)
        defer { storage.remove() }
        let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "ola") }
        #expect(error?.code == .verificationFailed)
        #expect(error?.traceId == "server-trace-401")
        #expect(error?.httpStatus == 401)
        #expect(error?.message == "Nope")
        #expect(listener.requests.count == 1)
    }

    @Test("authentication/verify refused by the live server (passkey removed there) is verificationFailed")
    func verifyRefused() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let enrolled = try await UMFAClient(config).enroll(userId: "pia")
            try await server.deleteCredential(app, user: "pia", credentialID: enrolled.credentialId)
            let recorder = RecordingRelyingParty(UMFAHTTPRelyingParty(config: config))
            let error = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config, relyingParty: recorder).authenticate(userId: "pia")
            }
            #expect(recorder.calls == ["beginAuthentication", "finishAuthentication"])
            #expect(error?.code == .verificationFailed)
            #expect(error?.recovery == .startOver)
            #expect(error?.httpStatus == 401)
            #expect(
                error?.message == "Authentication failed", "the server says only that it failed (docs/contract.md §4)")
            #expect(error?.traceId.flatMap(UUID.init(uuidString:)) != nil)
        }
    }

    @Test("unusable configurations are invalidConfiguration before any request")
    func invalidConfiguration() async throws {
        let listener = try TinyListener(.hangUp)
        defer { listener.stop() }
        let (valid, storage) = try Self.config(port: listener.port, retries: 0)
        defer { storage.remove() }
        var config = valid
        config.applicationId = "my-shop"
        let client = UMFAClient(config)
        let errors = [
            await #expect(throws: ZSMError.self) { try await client.checkEnrollment(userId: "quinn") },
            await #expect(throws: ZSMError.self) { try await client.enroll(userId: "quinn") },
            await #expect(throws: ZSMError.self) { try await client.authenticate(userId: "quinn") },
        ]
        for error in errors {
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message == "application_id must be the application's UUID")
        }
        #expect(await client.unenroll(userId: "quinn") == false)
        #expect(await client.enrollCompleted(userId: "quinn").error?.code == .invalidConfiguration)
        #expect(listener.requests.isEmpty)

        config.applicationId = Self.someApplication
        config.hostURL = try #require(URL(string: "ftp://127.0.0.1"))
        await #expect(throws: ZSMError(.invalidConfiguration, "")) { try await UMFAClient(config).enroll(userId: "q") }
        #expect(throws: ZSMError(.invalidConfiguration, "")) { try ZSMConfig(json: ["application_id": "x"]) }
        let fromJSON = try ZSMConfig(json: [
            "host_url": "https://mfa.example.com", "application_id": Self.someApplication, "timeout": 5,
            "retry_count": 1,
        ])
        #expect(fromJSON.timeout == 5)
        #expect(fromJSON.retryCount == 1)
    }

    @Test("an origin the server's RP ID does not cover is invalidConfiguration, not a consent refusal")
    func originOutsideRPID() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.origin = "https://shop.example.org"
            let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "rae") }
            #expect(error?.code == .invalidConfiguration)
            #expect(
                error?.message.contains("RP ID \"localhost\" is not valid for the origin https://shop.example.org")
                    == true)
            #expect(try storage.keyFiles().isEmpty)
        }
    }
}
