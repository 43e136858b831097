import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFATestSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// A test server with chosen abuse limits and timeouts, and `X-Forwarded-For` trusted so a
/// test can speak from several client addresses.
enum AbuseServer {
    static func with<Value: Sendable>(
        _ setup: ServerTransport = .router, limits: AbuseLimits,
        idleTimeout: Duration = ServerTransport.patientTimeout,
        bodyReadTimeout: Duration = ServerTransport.patientTimeout, clock: TestClock = TestClock(),
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let server = TestServer(clock: clock)
        defer { server.remove() }
        var configuration = server.configuration
        configuration.abuseLimits = limits
        configuration.trustForwardedFor = true
        configuration.idleTimeout = idleTimeout
        configuration.bodyReadTimeout = bodyReadTimeout
        var logger = Logger(label: "umfa-abuse-test")
        logger.logLevel = .critical
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        return try await app.exercise(setup) { client in
            try await body(API(client: client, clock: clock, directory: server.directory))
        }
    }
}

extension API {
    /// A request from the client address `address` (sent as `X-Forwarded-For`).
    func send(
        _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, bearer: String? = nil,
        from address: String
    ) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        if let name = HTTPFields.Element.Name("X-Forwarded-For") { headers[name] = address }
        let body = try json.map { ByteBuffer(bytes: try JSONEncoder().encode($0)) }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// A sign-in from `address` with an assertion whose signature is broken: a 401.
    func failedSignIn(_ app: TestApplication, user: String, device: Device, from address: String) async throws
        -> Reply
    {
        var assertion = try await assertion(app, user: user, device: device)
        var signature = assertion.response.signature.bytes
        signature[signature.count - 1] ^= 0x01
        assertion.response.signature = .init(signature)
        return try await signIn(app, user: user, assertion: assertion, from: address)
    }

    /// authentication/verify from `address`.
    func signIn(_ app: TestApplication, user: String, assertion: AuthenticationResponseJSON, from address: String)
        async throws -> Reply
    {
        let body: JSONValue = .object([
            "application_id": .string(app.id), "user_id": .string(user), "credential": try .encoding(assertion),
        ])
        return try await send(.post, APIOperation.authenticationVerify.path, json: body, from: address)
    }
}
