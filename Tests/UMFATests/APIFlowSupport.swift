import Foundation
import Logging
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFA

/// A clock the server and the SDK share, moved by the test.
final class SharedClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: @Sendable () -> Date { { Date().addingTimeInterval(self.offset.withLock { $0 }) } }

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

extension LiveServer {
    static let flowRedirect = "http://127.0.0.1/callback"
    static let flowScope = "openid profile email offline_access urn:umfa:api-flow"

    /// An OAuth client of `app` (a public, first-party one unless said otherwise) that may run
    /// the API-driven flow; its registration answer.
    func flowClient(_ app: TestApplication, _ extra: [String: JSONValue] = [:]) async throws -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "client_name": "Flow app", "redirect_uris": .array([.string(Self.flowRedirect)]),
            "grant_types": .array(["authorization_code", "refresh_token"]), "response_types": .array(["code"]),
            "token_endpoint_auth_method": "none", "scope": .string(Self.flowScope), "first_party": true,
            "access_token_ttl_seconds": 3600,
        ]
        body.merge(extra) { $1 }
        let reply = try await send(
            .post, APIOperation.createOAuthClient.path(["id": app.id]), json: .object(body), bearer: Self.adminToken)
        guard reply.status == 201, case .object(let client)? = reply.json else {
            throw TestFailure("creating a client failed: \(reply.status) \(reply.text)")
        }
        return client
    }

    /// The issuer of `app`.
    func issuer(_ app: TestApplication) -> URL { URL(string: "\(origin)/oidc/\(app.id)") ?? url }

    /// Sets application settings through the admin API.
    func patch(_ app: TestApplication, _ settings: [String: JSONValue]) async throws {
        let reply = try await send(
            .patch, APIOperation.updateApplication.path(["id": app.id]), json: .object(settings),
            bearer: Self.adminToken)
        guard reply.status == 200 else { throw TestFailure("PATCH failed: \(reply.status) \(reply.text)") }
    }
}

/// One device with a PIN, and the OAuth configuration for a client of an application.
struct FlowFixture: Sendable {
    let app: TestApplication
    let device: ZSMConfig
    var oauth: OAuthConfiguration
    let pad: SecretPad

    static let pin = "4719"

    static func make(
        _ server: LiveServer, _ storage: DeviceStorage, client extra: [String: JSONValue] = [:],
        app given: TestApplication? = nil
    ) async throws -> FlowFixture {
        let app: TestApplication
        if let given { app = given } else { app = try await server.createApplication(policy: "open") }
        let client = try await server.flowClient(app, extra)
        let pad = SecretPad(pin)
        var device = server.config(app, storage: storage)
        device.scryptRounds = 1 << 10
        device.userVerification = .pin(pad.provider)
        let clientID = try #require(client["client_id"]?.stringValue)
        let oauth = OAuthConfiguration(issuer: server.issuer(app), clientId: clientID)
        return FlowFixture(app: app, device: device, oauth: oauth, pad: pad)
    }

    func accounts(consent: (@Sendable (String?, [String]) async -> Bool)? = nil) throws -> PasskeyAccountClient {
        try PasskeyAccountClient(device: device, oauth: oauth, consent: consent)
    }
}
