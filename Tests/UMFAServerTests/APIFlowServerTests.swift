import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §6 at the server: who may start and continue a flow (the flow token, its DPoP
/// key, its client), how the flow ends when it expires, and what bad input gets. The journeys
/// themselves run in the SDK's tests (`APIFlowTests`) and in an independent Python client
/// (`Tests/Interop/test_api_flow_python_client.py`).
@Suite("API-driven flow: the server")
struct APIFlowServerTests {
    static let redirect = "https://app.example/callback"
    static let origin = "http://127.0.0.1:0"

    static func issuer(_ app: TestApplication) -> String { origin + "/oidc/" + app.id.lowercased() }

    /// A public client that may run the flow.
    static func flowClient(_ api: API, _ app: TestApplication, scope: String = "openid email urn:umfa:api-flow")
        async throws -> TestOAuthClient
    {
        try await api.createOAuthClient(
            app,
            OAuthClientRequest(
                clientName: "Phone app", redirectURIs: [redirect], grantTypes: ["authorization_code"],
                responseTypes: ["code"], tokenEndpointAuthMethod: "none", scope: scope, firstParty: true,
                accessTokenTTLSeconds: 3600))
    }

    /// A flow token for `client`, bound to `key` (unbound without one).
    static func flowToken(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, key: DPoPKey?)
        async throws -> String
    {
        let reply = try await api.form(
            .oauthToken, app,
            [("grant_type", "client_credentials"), ("scope", "urn:umfa:api-flow"), ("client_id", client.id)],
            dpop: key?.proof("POST", issuer(app) + "/token"))
        #expect(reply.status == .ok, "\(reply.text)")
        return try #require(reply["access_token"]?.stringValue)
    }

    /// A request of the flow to `url` with `token` and a proof of `key` for it.
    static func call(
        _ api: API, _ method: HTTPRequest.Method, _ url: String, token: String?, key: DPoPKey?,
        body: String? = nil, contentType: String = "application/json"
    ) async throws -> Reply {
        var headers: HTTPFields = [.accept: FlowStep.mediaType, .contentType: contentType]
        if let token { headers[.authorization] = "DPoP \(token)" }
        let htu = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        if let key { headers[DPoPKey.header] = key.proof(method.rawValue, htu, accessToken: token) }
        let response = try await api.client.execute(
            uri: String(url.dropFirst(origin.count)), method: method, headers: headers,
            body: body.map { ByteBuffer(string: $0) })
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    static func authorize(_ app: TestApplication, _ client: TestOAuthClient, _ extra: String = "") -> String {
        let challenge = Base64URL.encode(Array(repeating: 7, count: 32))
        return issuer(app) + "/authorize?client_id=\(client.id)&response_type=code&redirect_uri="
            + API.formEncode(redirect) + "&scope=openid%20email&state=s1&code_challenge=\(challenge)"
            + "&code_challenge_method=S256" + extra
    }

    static func step(_ reply: Reply) throws -> FlowStep {
        #expect(reply.status == .ok, "\(reply.text)")
        #expect(reply.headers[.contentType] == FlowStep.mediaType)
        return try JSONDecoder().decode(FlowStep.self, from: Data(reply.text.utf8))
    }

    static func problem(_ reply: Reply, _ status: HTTPResponse.Status, _ kind: FlowProblem.Kind) throws -> FlowProblem {
        #expect(reply.status == status, "\(reply.text)")
        #expect(reply.headers[.contentType] == FlowProblem.mediaType)
        let problem = try JSONDecoder().decode(FlowProblem.self, from: Data(reply.text.utf8))
        #expect(problem.type == kind, "\(reply.text)")
        #expect(problem.traceID?.isEmpty == false)
        return problem
    }

    @Test("only a DPoP-bound flow token of the request's client, with a proof of its key, starts a flow")
    func whoMayStart() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await Self.flowToken(api, app, client, key: key)
            let start = try Self.step(
                try await Self.call(api, .get, Self.authorize(app, client), token: token, key: key))
            #expect(start.type == .authentication && start.metadata?.viewName == "umfa:choose")
            #expect(start.action("passkey-sign-in")?.form?.href.hasPrefix(Self.issuer(app) + "/flow/") == true)

            // No token: the bare DPoP challenge. Another key's proof, and an unbound token: 401.
            let none = try await Self.call(api, .get, Self.authorize(app, client), token: nil, key: nil)
            #expect(none.status == .unauthorized && none.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)
            let stranger = try await Self.call(
                api, .get, Self.authorize(app, client), token: token, key: DPoPKey(now: { api.clock.now }))
            #expect(stranger.status == .unauthorized)
            #expect(stranger.headers[.wwwAuthenticate]?.contains("invalid_dpop_proof") == true)
            let unbound = try await Self.flowToken(api, app, client, key: nil)
            let plain = try await Self.call(api, .get, Self.authorize(app, client), token: unbound, key: key)
            #expect(plain.status == .unauthorized, "\(plain.text)")
            // A token without the flow scope (a machine client's), with a proof of its key.
            let machine = try await api.machineClient(app)
            let machineKey = DPoPKey(now: { api.clock.now })
            let other = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: (machine.id, machine.secret ?? ""),
                dpop: machineKey.proof("POST", Self.issuer(app) + "/token"))
            let machineToken = try #require(other["access_token"]?.stringValue)
            let refused = try await Self.call(
                api, .get, Self.authorize(app, client), token: machineToken, key: machineKey)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.wwwAuthenticate]?.contains("invalid_token") == true)

            // Another client's flow token does not start this client's flow.
            let second = try await Self.flowClient(api, app)
            let secondKey = DPoPKey(now: { api.clock.now })
            let secondToken = try await Self.flowToken(api, app, second, key: secondKey)
            _ = try Self.problem(
                try await Self.call(api, .get, Self.authorize(app, client), token: secondToken, key: secondKey),
                .badRequest, .invalidInput)
        }
    }

    @Test(
        "a request the flow cannot serve is a problem, never a redirect: prompt=none, a foreign redirect URI, a bad scope"
    )
    func requestProblems() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await Self.flowToken(api, app, client, key: key)
            let none = try Self.problem(
                try await Self.call(api, .get, Self.authorize(app, client, "&prompt=none"), token: token, key: key),
                .badRequest, .errorAuthorizationResponse)
            #expect(none.error == "login_required")
            let scope = try Self.problem(
                try await Self.call(
                    api, .get, Self.authorize(app, client).replacingOccurrences(of: "openid%20email", with: "admin"),
                    token: token, key: key), .badRequest, .errorAuthorizationResponse)
            #expect(scope.error == "invalid_scope")
            let foreign = try await Self.call(
                api, .get,
                Self.authorize(app, client).replacingOccurrences(
                    of: API.formEncode(Self.redirect), with: API.formEncode("https://evil.example/cb")),
                token: token, key: key)
            _ = try Self.problem(foreign, .badRequest, .invalidInput)
            #expect(foreign.headers[.location] == nil)
        }
    }

    @Test("bad form input is invalid-input and stores nothing; a URL-encoded form works as JSON does")
    func formInput() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await Self.flowToken(api, app, client, key: key)
            let start = try Self.step(
                try await Self.call(api, .get, Self.authorize(app, client), token: token, key: key))
            let create = try #require(start.action("create-account")?.form?.href)
            for (body, type) in [
                ("{not json", "application/json"), ("[1,2]", "application/json"),
                (#"{"email": 42}"#, "application/json"), ("email=not-an-address", "application/x-www-form-urlencoded"),
            ] {
                let reply = try await Self.call(
                    api, .post, create, token: token, key: key, body: body, contentType: type)
                _ = try Self.problem(reply, .badRequest, .invalidInput)
            }
            let invalid = try Self.problem(
                try await Self.call(
                    api, .post, create, token: token, key: key, body: "email=not-an-address",
                    contentType: "application/x-www-form-urlencoded"), .badRequest, .invalidInput)
            #expect(invalid.invalidFields?.first?.name == "email")
            #expect(invalid.invalidFields?.first?.reason == .invalidValue)
            let users = try await api.send(
                .get, APIOperation.listApplicationUsers.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(users["users"]?.arrayValue?.isEmpty == true, "\(users.text)")
            // The same form URL-encoded: the registration ceremony.
            let registration = try Self.step(
                try await Self.call(
                    api, .post, create, token: token, key: key, body: "email=ada%40example.com&given_name=Ada",
                    contentType: "application/x-www-form-urlencoded"))
            #expect(registration.type == .registration)
            #expect(registration.actions.first?.clientOperation?.name == "webauthn-registration")
        }
    }

    @Test("a flow expires after ten minutes (session-expired), and its handle never works on the hosted pages")
    func expiryAndIsolation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await Self.flowToken(api, app, client, key: key)
            let start = try Self.step(
                try await Self.call(api, .get, Self.authorize(app, client), token: token, key: key))
            let base = try #require(start.links.first { $0.rel == "restart" }?.href)
            let handle = String(base.split(separator: "/").last ?? "")
            // The hosted pages do not know a flow's handle.
            let hosted = try await api.send(
                .post, APIOperation.interactionSignInOptions.path(["application_id": app.id]),
                json: .object(["interaction": .string(handle)]))
            #expect(hosted.status == .unauthorized, "\(hosted.text)")
            #expect(try Self.step(try await Self.call(api, .get, base, token: token, key: key)).type == .authentication)
            // Another flow token of the same client, with a key of its own, does not reach this flow.
            let otherKey = DPoPKey(now: { api.clock.now })
            let otherToken = try await Self.flowToken(api, app, client, key: otherKey)
            _ = try Self.problem(
                try await Self.call(api, .get, base, token: otherToken, key: otherKey), .badRequest, .sessionExpired)
            _ = try Self.problem(
                try await Self.call(
                    api, .post, base + "/create-account", token: otherToken, key: otherKey,
                    body: #"{"email":"eve@example.com"}"#), .badRequest, .sessionExpired)
            // Nor does a hosted page's interaction, whatever the token.
            let page = try await api.send(.get, String(Self.authorize(app, client).dropFirst(Self.origin.count)))
            let hostedHandle = try API.page(page).interaction
            _ = try Self.problem(
                try await Self.call(api, .get, Self.issuer(app) + "/flow/" + hostedHandle, token: token, key: key),
                .badRequest, .sessionExpired)

            api.clock.advance(by: 601)
            let expired = try Self.problem(
                try await Self.call(api, .get, base, token: token, key: key), .badRequest, .sessionExpired)
            #expect(expired.messages?.first?.text.isEmpty == false)
            // An unknown flow reads the same.
            _ = try Self.problem(
                try await Self.call(api, .get, Self.issuer(app) + "/flow/unknown", token: token, key: key),
                .badRequest, .sessionExpired)
        }
    }

    @Test("sign-up closed mid-flow is authentication-failed; too many ceremonies from one address is too-many-attempts")
    func refusals() async throws {
        var server = TestServer()
        server.adjust = { $0.abuseLimits.optionsRequests = 3 }
        defer { server.remove() }
        try await server.run { api in
            let app = try await api.createApplication(policy: "open")
            let client = try await Self.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await Self.flowToken(api, app, client, key: key)
            let start = try Self.step(
                try await Self.call(api, .get, Self.authorize(app, client), token: token, key: key))
            let create = try #require(start.action("create-account")?.form?.href)
            let signIn = try #require(start.action("passkey-sign-in")?.form?.href)
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]), json: ["signup": "disabled"],
                bearer: TestServer.adminToken
            )
            #expect(patched.status == .ok, "\(patched.text)")
            let closed = try Self.problem(
                try await Self.call(api, .post, create, token: token, key: key, body: #"{"email":"a@example.com"}"#),
                .forbidden, .authenticationFailed)
            #expect(closed.title.contains("new accounts"))
            // A new flow no longer offers account creation.
            let again = try Self.step(
                try await Self.call(api, .get, Self.authorize(app, client), token: token, key: key))
            #expect(again.action("create-account") == nil && again.action("passkey-sign-in") != nil)

            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 {
                statuses.append(try await Self.call(api, .post, signIn, token: token, key: key, body: "{}").status)
            }
            // The first ceremonies are served; past the limit every one is refused.
            #expect(statuses.first == .ok, "\(statuses)")
            let firstRefusal = try #require(statuses.firstIndex(of: .tooManyRequests), "\(statuses)")
            #expect(statuses[firstRefusal...].allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            let limited = try await Self.call(api, .post, signIn, token: token, key: key, body: "{}")
            _ = try Self.problem(limited, .tooManyRequests, .tooManyAttempts)
            #expect(limited.headers[.retryAfter] != nil)
        }
    }
}
