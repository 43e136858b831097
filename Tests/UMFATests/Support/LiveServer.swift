import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFATestSupport
import UMFAWebAuthn

/// An application created through the admin API.
struct TestApplication: Sendable {
    let id: String
    let apiKey: String
}

/// One HTTP answer: the status code and the body as JSON when it is JSON.
struct Reply: Sendable {
    let status: Int
    let text: String
    let json: JSONValue?

    subscript(_ key: String) -> JSONValue? { json?.objectValue?[key] }
}

/// The UMFA server built in-process and listening on a real socket, so the SDK's URLSession
/// talks to it as to any deployment. Admin and backend calls go through the test client.
struct LiveServer: Sendable {
    static let adminToken = "umfa-sdk-test-admin-token-0123456789abcdef"

    /// Sends one request to the server: path, method, headers, body; status and body.
    typealias Execute =
        @Sendable (String, HTTPRequest.Method, HTTPFields, ByteBuffer?) async throws -> (Int, ByteBuffer)

    let execute: Execute
    let port: Int

    /// `http://localhost:<port>`: the SDK's host URL, whose origin the applications allow.
    var url: URL { URL(string: origin) ?? URL(fileURLWithPath: "/") }
    var origin: String { "http://localhost:\(port)" }

    /// Builds a server with a fresh data directory, runs `body` against it, then removes it.
    /// - Parameters:
    ///   - ownPublicURL: listen on a port chosen first and make `http://localhost:<port>` the
    ///     public URL, so the issuer's URLs (OpenID Connect, the API-driven flow) are reachable.
    ///   - now: the server's clock.
    ///   - attestationAnchors: the roots client attestations are judged against, when not UMFA's.
    ///   - approvalDispatchers: the push services told of approvals.
    static func with<Value: Sendable>(
        ownPublicURL: Bool = false, now: (@Sendable () -> Date)? = nil,
        attestationAnchors: AttestationTrustAnchors? = nil, approvalDispatchers: [any ApprovalDispatcher] = [],
        _ body: @Sendable (LiveServer) async throws -> Value
    ) async throws -> Value {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-sdk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "umfa-sdk-test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: directory, adminToken: adminToken, createDefaultApplication: false)
        configuration.bodyReadTimeout = ServerTransport.patientTimeout
        // The test client keeps one connection for the whole test; a test whose SDK calls take
        // minutes on a loaded machine must not find it closed as idle (a stressed run did).
        configuration.idleTimeout = ServerTransport.patientTimeout
        if let now { configuration.now = now }
        if let attestationAnchors { configuration.attestationAnchors = attestationAnchors }
        configuration.approvalDispatchers = approvalDispatchers
        if ownPublicURL {
            configuration.host = "127.0.0.1"
            // The port is chosen before the server starts, so another server may take it in
            // between; this server's bind then fails, and a new port is chosen (never the test
            // run again: `body` has not started).
            for _ in 0..<5 {
                configuration.port = try TinyListener.closedPort()
                configuration.publicURL = "http://localhost:\(configuration.port)"
                let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
                do {
                    return try await Self.run(app, port: configuration.port, body)
                } catch is PortTaken {
                    continue
                }
            }
            throw TestFailure("five chosen ports were taken before the server could bind them")
        }
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        return try await app.exercise(.live) { client in
            guard let port = client.port else { throw TestFailure("the live test client has no port") }
            let execute: Execute = { uri, method, headers, body in
                let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
                return (Int(response.status.code), response.body)
            }
            return try await body(LiveServer(execute: execute, port: port))
        }
    }

    /// Runs `app` on `port` (the test framework's live mode always picks a port of its own),
    /// with a test client of its own, until `body` ends.
    private static func run<Value: Sendable>(
        _ app: some ApplicationProtocol, port: Int, _ body: @Sendable (LiveServer) async throws -> Value
    ) async throws -> Value {
        let bound = BindSignal()
        let group = ServiceGroup(
            configuration: .init(
                services: [BindReportingApplication(base: app, bound: bound)], gracefulShutdownSignals: [],
                logger: Logger(label: "umfa-sdk-test")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                // A run that ends before the server listens is a port someone else took.
                defer { bound.settle(false) }
                try? await group.run()
            }
            // Wait until this server listens (another one on the port would not say so).
            guard await bound.value() else { throw PortTaken() }
            // Made only now: a test client that never connects leaks its channel promise, which
            // HummingbirdTesting reports as a fatal error (a CI run on a loaded machine hit it).
            let client = TestClient(
                host: "127.0.0.1", port: port, configuration: .init(timeout: ServerTransport.patientTimeout))
            client.connect()
            let execute: Execute = { uri, method, headers, body in
                var headers = headers
                headers[.connection] = "keep-alive"
                let response = try await client.execute(
                    TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
                return (Int(response.status.code), response.body ?? ByteBuffer())
            }
            do {
                let value = try await body(LiveServer(execute: execute, port: port))
                try await client.shutdown()
                await group.triggerGracefulShutdown()
                return value
            } catch {
                try? await client.shutdown()
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, bearer: String? = nil)
        async throws -> Reply
    {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
        }
        let (status, answer) = try await execute(path, method, headers, body)
        let text = String(buffer: answer)
        return Reply(
            status: status, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    // MARK: Admin

    /// Creates an application for this server's origin with RP ID `localhost`.
    func createApplication(
        policy: String = "grant", rpID: String = "localhost", userVerification: String? = nil
    ) async throws -> TestApplication {
        var body: [String: JSONValue] = [
            "name": .string("SDK test shop"), "rp_id": .string(rpID), "origins": .array([.string(origin)]),
            "enrollment_policy": .string(policy),
        ]
        if let userVerification { body["user_verification"] = .string(userVerification) }
        let reply = try await send(
            .post, APIOperation.createApplication.path, json: .object(body), bearer: Self.adminToken)
        guard reply.status == 201, let id = reply["application_id"]?.stringValue,
            let key = reply["api_key"]?.stringValue
        else { throw TestFailure("creating an application failed: \(reply.status) \(reply.text)") }
        return TestApplication(id: id, apiKey: key)
    }

    // MARK: Backend (API key)

    func enrollmentToken(_ app: TestApplication, user: String) async throws -> String {
        let reply = try await send(
            .post, APIOperation.createEnrollmentToken.path,
            json: .object(["application_id": .string(app.id), "user_id": .string(user)]), bearer: app.apiKey)
        guard reply.status == 201, let token = reply["enrollment_token"]?.stringValue else {
            throw TestFailure("enrollment-tokens failed: \(reply.status) \(reply.text)")
        }
        return token
    }

    func validate(_ app: TestApplication, user: String, token: String) async throws -> Reply {
        try await send(
            .post, APIOperation.validateToken.path,
            json: .object(["application_id": .string(app.id), "user_id": .string(user), "token": .string(token)]),
            bearer: app.apiKey)
    }

    /// The user's credentials as the server lists them.
    func credentials(_ app: TestApplication, user: String) async throws -> [JSONValue] {
        let reply = try await send(
            .get, APIOperation.listUserCredentials.path(["user_id": user]) + "?application_id=\(app.id)",
            bearer: app.apiKey)
        guard reply.status == 200, case .array(let credentials)? = reply["credentials"] else {
            throw TestFailure("listing credentials failed: \(reply.status) \(reply.text)")
        }
        return credentials
    }

    func deleteCredential(_ app: TestApplication, user: String, credentialID: String) async throws {
        let reply = try await send(
            .delete,
            APIOperation.deleteUserCredential.path(["user_id": user, "credential_id": credentialID])
                + "?application_id=\(app.id)",
            bearer: app.apiKey)
        guard reply.status == 200 else { throw TestFailure("deleting failed: \(reply.status) \(reply.text)") }
    }
}

/// A step of a test's setup did not go as it must.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
