import Foundation
import Hummingbird
import HummingbirdTesting
import UMFAAuthenticator
import UMFAContract
import UMFAEncoding
import UMFATestSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// An application created through the admin API, with what its backend and devices need.
struct TestApplication: Sendable {
    static let rpID = "example.com"
    static let origin = "https://app.example.com"

    let id: String
    let apiKey: String
    let settings: JSONValue
}

/// A device: the browser emulation over a software authenticator with its own key store.
typealias Device = WebAuthnClient

extension WebAuthnClient {
    /// A new device for the test applications' origin.
    static func make(origin: String = TestApplication.origin) -> WebAuthnClient {
        WebAuthnClient(origin: origin, authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore()))
    }
}

/// What registration/verify and authentication/verify answer.
struct CeremonyResult: Sendable {
    let traceID: String
    let userID: String
    let credentialID: String
    let token: String
}

/// One HTTP answer: the status, the body as JSON when it is JSON, and the raw text.
struct Reply: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String
    let json: JSONValue?

    subscript(_ key: String) -> JSONValue? { json?[key] }
}

/// The UMFA HTTP API as tests drive it: raw requests plus the usual admin, backend and
/// device steps, each checked for success so a test reads as the flow it covers.
struct API: Sendable {
    let client: any ServerClient
    let clock: TestClock
    /// The server's data directory.
    let directory: URL

    func send(
        _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, raw: String? = nil,
        bearer: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
        } else if let raw {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: raw)
        }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    func post(_ path: String, _ json: JSONValue, bearer: String? = nil) async throws -> Reply {
        try await send(.post, path, json: json, bearer: bearer)
    }

    /// Calls `operation` with a contract body.
    func call(_ operation: APIOperation, _ body: some ContractBody, bearer: String? = nil) async throws -> Reply {
        try await send(
            HTTPRequest.Method(operation.method) ?? .post, operation.path, json: try .encoding(body), bearer: bearer)
    }

    // MARK: Admin

    func createApplication(
        policy: String = "grant", tokenTTL: Int? = nil, userVerification: String? = nil
    ) async throws -> TestApplication {
        let body = CreateApplicationRequest(
            name: "Test shop", rpID: TestApplication.rpID, origins: [TestApplication.origin],
            settings: ApplicationSettingsRequest(
                ApplicationSettings(
                    enrollmentPolicy: policy, userVerification: userVerification, tokenTTLSeconds: tokenTTL)))
        let reply = try await call(.createApplication, body, bearer: TestServer.adminToken)
        guard reply.status == .created, let id = reply["application_id"]?.stringValue,
            let key = reply["api_key"]?.stringValue, let settings = reply.json
        else { throw TestFailure("creating an application failed: \(reply.status) \(reply.text)") }
        return TestApplication(id: id, apiKey: key, settings: settings)
    }

    // MARK: Backend (API key)

    func enrollmentToken(
        _ app: TestApplication, user: String, userpwTime: String? = nil, ttl: Int? = nil
    ) async throws -> String {
        let body = EnrollmentTokenRequest(applicationID: app.id, userID: user, ttlSeconds: ttl, userpwTime: userpwTime)
        let reply = try await call(.createEnrollmentToken, body, bearer: app.apiKey)
        guard reply.status == .created, let token = reply["enrollment_token"]?.stringValue else {
            throw TestFailure("enrollment-tokens failed: \(reply.status) \(reply.text)")
        }
        return token
    }

    func validate(
        _ app: TestApplication, user: String, token: JSONValue, type: String? = nil, typeKey: String = "token_type",
        key: String? = nil, traceID: String? = nil
    ) async throws -> Reply {
        guard typeKey == "token_type" else {
            // The dashed spelling the UMFA documentation's example uses is not the contract type's.
            var body: [String: JSONValue] = [
                "application_id": .string(app.id), "user_id": .string(user), "token": token,
            ]
            if let type { body[typeKey] = .string(type) }
            if let traceID { body["trace_id"] = .string(traceID) }
            return try await post(APIOperation.validateToken.path, .object(body), bearer: key ?? app.apiKey)
        }
        let body = ValidateTokenRequest(
            applicationID: app.id, userID: user, token: token, tokenType: type, traceID: traceID)
        return try await call(.validateToken, body, bearer: key ?? app.apiKey)
    }

    // MARK: Device

    func registrationOptions(
        _ app: TestApplication, user: String, enrollmentToken: String? = nil, token: String? = nil
    ) async throws -> Reply {
        try await call(
            .registrationOptions,
            RegistrationOptionsRequest(
                applicationID: app.id, userID: user, enrollmentToken: enrollmentToken, token: token))
    }

    /// registration/options, the authenticator, registration/verify; fails unless both answer 200.
    func register(
        _ app: TestApplication, user: String, device: Device, enrollmentToken: String? = nil, token: String? = nil,
        traceID: String? = nil
    ) async throws -> CeremonyResult {
        let options = try await registrationOptions(
            app, user: user, enrollmentToken: enrollmentToken, token: token)
        guard options.status == .ok, let publicKey = options["publicKey"] else {
            throw TestFailure("registration/options failed: \(options.status) \(options.text)")
        }
        let credential = try device.create(try publicKey.decoded(CreationOptionsJSON.self), userVerified: true)
        let body = RegistrationVerifyRequest(
            applicationID: app.id, userID: user, credential: credential, traceID: traceID)
        return try CeremonyResult(try await call(.registrationVerify, body))
    }

    func authenticationOptions(_ app: TestApplication, user: String?) async throws -> Reply {
        try await call(.authenticationOptions, AuthenticationOptionsRequest(applicationID: app.id, userID: user))
    }

    /// authentication/options and the authenticator's assertion, not yet verified.
    func assertion(_ app: TestApplication, user: String?, device: Device) async throws -> AuthenticationResponseJSON {
        let options = try await authenticationOptions(app, user: user)
        guard options.status == .ok, let publicKey = options["publicKey"] else {
            throw TestFailure("authentication/options failed: \(options.status) \(options.text)")
        }
        return try device.get(try publicKey.decoded(RequestOptionsJSON.self), userVerified: true)
    }

    func verifyAssertion(
        _ app: TestApplication, user: String?, credential: AuthenticationResponseJSON,
        path: String = APIOperation.authenticationVerify.path
    ) async throws -> Reply {
        let body = AuthenticationVerifyRequest(applicationID: app.id, userID: user, credential: credential)
        return try await post(path, try .encoding(body))
    }

    /// A full sign-in; fails unless it answers 200.
    func authenticate(_ app: TestApplication, user: String?, device: Device) async throws -> CeremonyResult {
        let credential = try await assertion(app, user: user, device: device)
        return try CeremonyResult(try await verifyAssertion(app, user: user, credential: credential))
    }
}

extension CeremonyResult {
    init(_ reply: Reply) throws {
        guard reply.status == .ok, let traceID = reply["trace_id"]?.stringValue,
            let userID = reply["user_id"]?.stringValue, let credentialID = reply["credential_id"]?.stringValue,
            let token = reply["token"]?.stringValue
        else { throw TestFailure("the ceremony failed: \(reply.status) \(reply.text)") }
        self.init(traceID: traceID, userID: userID, credentialID: credentialID, token: token)
    }
}

/// A step of a test's setup did not go as it must.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
