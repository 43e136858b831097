import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

/// The device authorization grant (RFC 8628): the device's codes, its polling, the person's
/// decision on the hosted device page's routes, and the attacks on it (a guessed user code,
/// another client's device code, a decision without a sign-in).
@Suite("Device authorization grant")
struct DeviceGrantTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// A public device client (`none`), allowed the device and refresh grants.
    static func deviceClient(_ api: API, _ app: TestApplication, method: String = "none") async throws
        -> TestOAuthClient
    {
        try await api.createOAuthClient(
            app,
            OAuthClientRequest(
                clientName: "Living-room TV", grantTypes: [grantType, "refresh_token"], responseTypes: [],
                tokenEndpointAuthMethod: method, scope: "openid profile offline_access"))
    }

    /// `POST /device_authorization` as the public client `client`.
    static func start(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, scope: String? = nil)
        async throws -> Reply
    {
        var form = [("client_id", client.id)]
        if let scope { form.append(("scope", scope)) }
        return try await api.form(.oauthDeviceAuthorization, app, form)
    }

    /// The user and device codes of a new device authorization.
    static func codes(_ api: API, _ app: TestApplication, _ client: TestOAuthClient) async throws
        -> (user: String, device: String)
    {
        let started = try await start(api, app, client)
        return (try #require(started["user_code"]?.stringValue), try #require(started["device_code"]?.stringValue))
    }

    /// One poll of the token endpoint with `deviceCode`.
    static func poll(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ deviceCode: String)
        async throws -> Reply
    {
        try await api.form(
            .oauthToken, app, [("grant_type", grantType), ("device_code", deviceCode), ("client_id", client.id)])
    }

    static func lookup(_ api: API, _ app: TestApplication, _ code: String) async throws -> Reply {
        try await api.send(
            .post, APIOperation.deviceCodeLookup.path(["application_id": app.id]), json: ["user_code": .string(code)])
    }

    static func decide(_ api: API, _ app: TestApplication, _ code: String, allow: Bool, token: String?) async throws
        -> Reply
    {
        try await api.send(
            .post, APIOperation.deviceDecision.path(["application_id": app.id]),
            json: ["user_code": .string(code), "allow": .bool(allow)], bearer: token)
    }

    /// A user with a passkey, signed in now: the login token.
    static func signedIn(_ api: API, _ app: TestApplication, user: String = "alice") async throws -> String {
        let device = Device.make()
        _ = try await api.register(app, user: user, device: device)
        return try await api.authenticate(app, user: user, device: device).token
    }

    @Test("the device polls, the person approves with a passkey sign-in, the next poll gets the person's tokens once")
    func approved() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let started = try await Self.start(api, app, client, scope: "openid profile")
            #expect(started.status == .ok, "\(started.text)")
            let userCode = try #require(started["user_code"]?.stringValue)
            let deviceCode = try #require(started["device_code"]?.stringValue)
            // RFC 8628 §6.1: eight consonants shown as XXXX-XXXX.
            #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
            #expect(started["verification_uri"]?.stringValue?.hasSuffix("/oidc/\(app.id)/device") == true)
            #expect(
                started["verification_uri_complete"]?.stringValue
                    == (started["verification_uri"]?.stringValue ?? "") + "?user_code=" + userCode)
            #expect(started["expires_in"]?.intValue == 600 && started["interval"]?.intValue == 5)

            // Before a decision: pending; too soon again: slow_down; after the longer interval: pending.
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "authorization_pending")
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "slow_down")
            // RFC 8628 §3.5: each slow_down adds 5 seconds, for this and every later poll.
            api.clock.advance(by: 6)
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "slow_down")
            api.clock.advance(by: 16)
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "authorization_pending")

            // The person types the code in lower case without its dash and sees who asks.
            let typed = userCode.lowercased().replacingOccurrences(of: "-", with: " ")
            let shown = try await Self.lookup(api, app, typed)
            #expect(shown.status == .ok, "\(shown.text)")
            #expect(shown["client_name"]?.stringValue == "Living-room TV")
            #expect(shown["scopes"] == ["openid", "profile"])
            #expect(shown["user_code"]?.stringValue == userCode && shown["self_registered"] == false)

            let token = try await Self.signedIn(api, app)
            let decided = try await Self.decide(api, app, typed, allow: true, token: token)
            #expect(decided.status == .ok && decided["decision"]?.stringValue == "approved", "\(decided.text)")
            // The user code is spent.
            #expect(try await Self.lookup(api, app, userCode).status == .notFound)

            api.clock.advance(by: 11)
            let tokens = try await Self.poll(api, app, client, deviceCode)
            #expect(tokens.status == .ok, "\(tokens.text)")
            #expect(tokens["scope"]?.stringValue == "openid profile")
            #expect(tokens["refresh_token"]?.stringValue?.isEmpty == false)
            let idToken = try CompactJWT(try #require(tokens["id_token"]?.stringValue))
            #expect(idToken.claims["sub"]?.stringValue == "alice")
            #expect(idToken.claims["aud"]?.stringValue == client.id && idToken.claims["nonce"] == nil)
            // Once: the device code is spent.
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "invalid_grant")

            let audit = try await api.send(
                .get, APIOperation.listAuditEvents.path + "?action=device.approved", bearer: TestServer.adminToken)
            let event = try #require(audit["events"]?.arrayValue?.first)
            #expect(
                event["user_id"]?.stringValue == "alice" && event["details"]?["client_id"]?.stringValue == client.id)
        }
    }

    @Test("a denial ends in access_denied once, then the device code is spent")
    func denied() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let (userCode, deviceCode) = try await Self.codes(api, app, client)
            let token = try await Self.signedIn(api, app)
            let decided = try await Self.decide(api, app, userCode, allow: false, token: token)
            #expect(decided.status == .ok && decided["decision"]?.stringValue == "denied", "\(decided.text)")
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "access_denied")
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "invalid_grant")
        }
    }

    @Test("after ten minutes the codes expire: expired_token for the device, 404 for the page")
    func expired() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let (userCode, deviceCode) = try await Self.codes(api, app, client)
            api.clock.advance(by: 601)
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "expired_token")
            #expect(try await Self.lookup(api, app, userCode).status == .notFound)
            expectOAuthError(try await Self.poll(api, app, client, "umfa_dc_forged"), .badRequest, "invalid_grant")
        }
    }

    @Test("a client not registered for the grant is refused; another client's device code is refused")
    func clients() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let other = try await Self.deviceClient(api, app)
            let codeClient = try await api.codeClient(app, method: "none")
            expectOAuthError(
                try await api.form(.oauthDeviceAuthorization, app, [("client_id", codeClient.id)]), .badRequest,
                "unauthorized_client")
            expectOAuthError(try await Self.start(api, app, client, scope: "admin"), .badRequest, "invalid_scope")
            let started = try await Self.start(api, app, client)
            let deviceCode = try #require(started["device_code"]?.stringValue)
            expectOAuthError(try await Self.poll(api, app, other, deviceCode), .badRequest, "invalid_grant")
        }
    }

    @Test("HTTP Basic with an empty password names a public client; a confidential one still needs its secret")
    func basicWithoutPassword() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let started = try await api.form(.oauthDeviceAuthorization, app, [], basic: (client.id, ""))
            #expect(started.status == .ok, "\(started.text)")
            let deviceCode = try #require(started["device_code"]?.stringValue)
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, [("grant_type", Self.grantType), ("device_code", deviceCode)],
                    basic: (client.id, "")), .badRequest, "authorization_pending")

            let confidential = try await Self.deviceClient(api, app, method: "client_secret_basic")
            expectOAuthError(
                try await api.form(.oauthDeviceAuthorization, app, [], basic: (confidential.id, "")), .unauthorized,
                "invalid_client")
            let secret = try #require(confidential.secret)
            #expect(
                try await api.form(.oauthDeviceAuthorization, app, [], basic: (confidential.id, secret)).status == .ok)
        }
    }

    @Test("ten wrong user codes from one address, then 429 even for the right code; nothing is decided")
    func guessing() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let (userCode, deviceCode) = try await Self.codes(api, app, client)
            let wrong = userCode == "BCDF-GHJK" ? "BCDF-GHJL" : "BCDF-GHJK"
            for guess in [wrong, "not a code", wrong, "BCDFGHJKLM", wrong, wrong, wrong, wrong, wrong, wrong] {
                let reply = try await Self.lookup(api, app, guess)
                #expect(reply.status == .notFound, "\(reply.text)")
            }
            let blocked = try await Self.lookup(api, app, userCode)
            #expect(blocked.status == .tooManyRequests, "\(blocked.text)")
            #expect(blocked.headers[.retryAfter] != nil)
            let token = try await Self.signedIn(api, app)
            #expect(try await Self.decide(api, app, userCode, allow: true, token: token).status == .tooManyRequests)
            expectOAuthError(try await Self.poll(api, app, client, deviceCode), .badRequest, "authorization_pending")
        }
    }

    @Test("a decision needs a fresh login token of this application; without one the code stays unspent")
    func decisionNeedsSignIn() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let otherApp = try await api.createApplication(policy: "open")
            let client = try await Self.deviceClient(api, app)
            let userCode = try await Self.codes(api, app, client).user
            #expect(try await Self.decide(api, app, userCode, allow: true, token: nil).status == .unauthorized)
            #expect(try await Self.decide(api, app, userCode, allow: true, token: "x.y.z").status == .unauthorized)
            let elsewhere = try await Self.signedIn(api, otherApp)
            #expect(try await Self.decide(api, app, userCode, allow: true, token: elsewhere).status == .unauthorized)
            let token = try await Self.signedIn(api, app)
            api.clock.advance(by: 301)
            #expect(try await Self.decide(api, app, userCode, allow: true, token: token).status == .unauthorized)
            #expect(try await Self.lookup(api, app, userCode).status == .ok)
        }
    }

    @Test("discovery names the device endpoint and the grant; the page fills in and draws a typed code")
    func discoveryAndPage() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let metadata = try await api.browse(APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(
                metadata["device_authorization_endpoint"]?.stringValue?.hasSuffix(
                    "/oidc/\(app.id)/device_authorization")
                    == true)
            #expect(metadata["grant_types_supported"]?.arrayValue?.contains(.string(Self.grantType)) == true)
            let page = try await api.browse(
                APIOperation.devicePage.path(["application_id": app.id]), query: ["user_code": "wdjb mjht"])
            #expect(page.status == .ok)
            #expect(page.text.contains(#"value="WDJB-MJHT""#))
            #expect(page.text.contains("data:image/png;base64,"))
            let attack = try await api.browse(
                APIOperation.devicePage.path(["application_id": app.id]), query: ["user_code": "\"><script>"])
            #expect(attack.status == .ok && !attack.text.contains("<script>x") && !attack.text.contains("\"><script>"))
            #expect(!attack.text.contains("data:image/png"))
        }
    }

    @Test("guesses sent all at once are counted before they run: at most ten get an answer")
    func concurrentGuessing() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<30 {
                    let guess = UserCodeSample.code(index)
                    group.addTask { try await Self.lookup(api, app, guess).status.code }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 404 }.count <= 10, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count >= 20, "\(statuses)")
        }
    }
}

/// Well-formed user codes that name no device.
enum UserCodeSample {
    static func code(_ index: Int) -> String {
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        let tail = (0..<4).map { letters[(index / Int(pow(20, Double($0)))) % 20] }
        return "BCDF-" + String(tail)
    }
}
