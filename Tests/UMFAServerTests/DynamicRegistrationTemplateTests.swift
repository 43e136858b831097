import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// Dynamic registration (docs/contract.md §5; docs/security-reviews.md): a self-registered client is
/// first-party only with the template's own redirect URIs; registrations choose scopes only
/// from the allowed ones and tokens name only registered resources; the bearer token is checked
/// before anything else; RFC 7592 updates are a compare-and-set on the registration token.
@Suite("Dynamic registration: first-party templates, scopes and resources")
struct DynamicRegistrationTemplateTests {
    static let attackerURI = "https://attacker.example/cb"

    /// A first-party `dcr_template` code client whose credentials ship inside the app.
    static func firstPartyTemplate(_ api: API, _ app: TestApplication) async throws -> TestOAuthClient {
        var request = OAuthClientRequest(
            clientName: "Shop app", redirectURIs: [Authorization.redirectURI],
            grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "client_secret_basic", scope: "openid email offline_access", firstParty: true)
        request.dcrTemplate = true
        return try await api.createOAuthClient(app, request)
    }

    /// The template's `dcr` token, as anyone holding the app's embedded credentials gets it.
    static func dcrToken(_ api: API, _ app: TestApplication, _ template: TestOAuthClient) async throws -> String {
        let reply = try await api.form(
            .oauthToken, app, [("grant_type", "client_credentials"), ("scope", "dcr")],
            basic: (template.id, try #require(template.secret)))
        return try #require(reply["access_token"]?.stringValue, "\(reply.text)")
    }

    /// An application with a first-party template, a victim signed in through it (the SSO
    /// cookie), and the `dcr` token anyone holding the template's shipped credentials gets.
    static func victimAndAttacker(_ api: API) async throws
        -> (app: TestApplication, template: TestOAuthClient, cookie: String, dcr: String)
    {
        let app = try await api.createApplication(policy: "grant")
        let template = try await firstPartyTemplate(api, app)
        let (_, cookie) = try await api.signUpThroughFlow(
            app, client: template, flow: Authorization(), email: "victim@example.com", device: Device.make(),
            scope: "openid email offline_access")
        return (app, template, cookie, try await dcrToken(api, app, template))
    }

    static func firstParty(_ api: API, _ app: TestApplication, _ clientID: String) async throws -> Bool? {
        try await api.send(
            .get, APIOperation.getOAuthClient.path(["id": app.id, "client_id": clientID]),
            bearer: TestServer.adminToken
        )["first_party"]?.boolValue
    }

    @Test("a client registered from a first-party template with its own redirect URI gets no silent code")
    func templateWithForeignRedirect() async throws {
        try await TestServer.with { api in
            let (app, template, cookie, dcr) = try await Self.victimAndAttacker(api)

            // The attack: the template's public credentials register a client for another site.
            let evil = try await api.registration(
                .post, app, json: ["redirect_uris": [.string(Self.attackerURI)], "client_name": "Shop"],
                authorization: "Bearer " + dcr)
            #expect(evil.status == .created, "\(evil.text)")
            let evilID = try #require(evil["client_id"]?.stringValue)
            #expect(try await Self.firstParty(api, app, evilID) == false)
            let flow = Authorization()
            let silent = try await api.authorize(
                app,
                flow.query(
                    client: evilID, scope: "openid email", redirectURI: Self.attackerURI, extra: ["prompt": "none"]),
                cookie: cookie)
            let refused = try silent.redirect()
            #expect(refused["code"] == nil, "no code for the victim goes to the attacker")
            #expect(refused["error"] == "consent_required")
            // Without prompt=none the victim sees the consent page rather than a redirect.
            let asked = try await api.authorize(
                app, flow.query(client: evilID, scope: "openid email", redirectURI: Self.attackerURI), cookie: cookie)
            #expect(asked.status == .ok, "\(asked.status)")
            #expect(try API.page(asked).view == "consent")

            // A client with the template's own redirect URIs stays first-party, until the template
            // no longer lists them: checked again at each authorization request.
            let own = try await api.registration(.post, app, json: [:], authorization: "Bearer " + dcr)
            let ownID = try #require(own["client_id"]?.stringValue)
            #expect(try await Self.firstParty(api, app, ownID) == true)
            let ownFlow = Authorization()
            let quiet = try await api.authorize(
                app, ownFlow.query(client: ownID, scope: "openid email", extra: ["prompt": "none"]), cookie: cookie)
            #expect(try quiet.redirect()["code"] != nil, "\(quiet.text)")
            var moved = OAuthClientRequest()
            moved.redirectURIs = ["https://rp.example/v2/callback"]
            let patched = try await api.send(
                .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": template.id]),
                json: try .encoding(moved), bearer: TestServer.adminToken)
            #expect(patched.status == .ok, "\(patched.text)")
            let later = try await api.authorize(
                app, ownFlow.query(client: ownID, scope: "openid email", extra: ["prompt": "none"]), cookie: cookie)
            #expect(try later.redirect()["error"] == "consent_required")
        }
    }

    @Test("a request pushed with the attacker's URI, then the client updated to the template's URIs: no silent code")
    func pushedThenUpdated() async throws {
        try await TestServer.with { api in
            let (app, _, cookie, dcr) = try await Self.victimAndAttacker(api)
            let evil = try await api.registration(
                .post, app, json: ["redirect_uris": [.string(Self.attackerURI)]], authorization: "Bearer " + dcr)
            let id = try #require(evil["client_id"]?.stringValue)
            let secret = try #require(evil["client_secret"]?.stringValue)
            let management = try #require(evil["registration_access_token"]?.stringValue)
            let flow = Authorization()
            let pushed = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                flow.query(
                    client: id, scope: "openid email", redirectURI: Self.attackerURI, extra: ["prompt": "none"]
                ).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, basic: (id, secret))
            let requestURI = try #require(pushed["request_uri"]?.stringValue, "\(pushed.text)")
            // RFC 7592: now only the template's redirect URI, which makes the client first-party.
            let updated = try await api.registration(
                .put, app, client: id,
                json: ["client_id": .string(id), "redirect_uris": [.string(Authorization.redirectURI)]],
                authorization: "Bearer " + management)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(try await Self.firstParty(api, app, id) == true)
            let landed = try await api.authorize(app, ["client_id": id, "request_uri": requestURI], cookie: cookie)
            #expect(landed.headers[.location]?.contains("code=") != true, "\(landed.headers[.location] ?? "")")
            #expect(landed.headers[.location]?.hasPrefix(Self.attackerURI) != true)
        }
    }

    @Test("RFC 7592: an update re-checks that software_id still names a template; first_party goes when it does not")
    func updateRechecksTemplate() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let template = try await Self.firstPartyTemplate(api, app)
            let dcr = try await Self.dcrToken(api, app, template)
            let made = try await api.registration(.post, app, json: [:], authorization: "Bearer " + dcr)
            let id = try #require(made["client_id"]?.stringValue)
            let management = try #require(made["registration_access_token"]?.stringValue)
            #expect(try await Self.firstParty(api, app, id) == true)
            var plain = OAuthClientRequest()
            plain.dcrTemplate = false
            #expect(
                try await api.send(
                    .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": template.id]),
                    json: try .encoding(plain), bearer: TestServer.adminToken
                ).status == .ok)
            let updated = try await api.registration(
                .put, app, client: id,
                json: ["client_id": .string(id), "redirect_uris": [.string(Authorization.redirectURI)]],
                authorization: "Bearer " + management)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(try await Self.firstParty(api, app, id) == false)
            // The client's own settings are kept, never widened.
            #expect(updated["scope"]?.stringValue == "openid email offline_access")
        }
    }

    @Test("an initial access token's client asks only for allowed scopes; a token names only registered resources")
    func scopesAndResources() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app, uses: 3)
            let greedy: JSONValue = [
                "grant_types": ["client_credentials"], "scope": "payments:admin", "client_name": "Greedy",
            ]
            let refused = try await api.registration(.post, app, json: greedy, authorization: "Bearer " + token)
            expectOAuthError(refused, .badRequest, "invalid_client_metadata")
            let clients = APIOperation.listOAuthClients.path(["id": app.id])
            #expect(try await api.send(.get, clients, bearer: TestServer.adminToken)["clients"] == [])

            // The application allows it: then it may. An initial access token's own list also does.
            let allowed = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["allowed_scopes": ["openid", "payments:read"]], bearer: TestServer.adminToken)
            #expect(allowed["allowed_scopes"] == ["openid", "payments:read"], "\(allowed.text)")
            let reader = try await api.registration(
                .post, app, json: greedy.merging(["scope": "payments:read"]), authorization: "Bearer " + token)
            #expect(reader.status == .created, "\(reader.text)")
            let scoped = try await api.initialAccessToken(app, scope: "billing")
            #expect(
                try await api.registration(
                    .post, app, json: greedy.merging(["scope": "billing"]), authorization: "Bearer " + scoped
                ).status == .created)

            // RFC 7592 may not widen it either.
            let id = try #require(reader["client_id"]?.stringValue)
            let management = try #require(reader["registration_access_token"]?.stringValue)
            let widened = try await api.registration(
                .put, app, client: id, json: greedy.merging(["client_id": .string(id)]),
                authorization: "Bearer " + management)
            expectOAuthError(widened, .badRequest, "invalid_client_metadata")

            // resource (RFC 8707): only the application's own indicators.
            let secret = try #require(reader["client_secret"]?.stringValue)
            let foreign = try await api.form(
                .oauthToken, app,
                [("grant_type", "client_credentials"), ("resource", "https://api.other-tenant.example")],
                basic: (id, secret))
            expectOAuthError(foreign, .badRequest, "invalid_target")
            let resource = "https://api.shop.example"
            let registered = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["resource_indicators": [.string(resource)]], bearer: TestServer.adminToken)
            #expect(registered.status == .ok, "\(registered.text)")
            let granted = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("resource", resource)], basic: (id, secret))
            let claims = try CompactJWT(try #require(granted["access_token"]?.stringValue, "\(granted.text)")).claims
            #expect(claims["aud"]?.stringValue == resource)

            // One application's resource is no other's: an aud then names one issuer.
            let other = try await api.createApplication(policy: "grant")
            let taken = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": other.id]),
                json: ["resource_indicators": [.string(resource)]], bearer: TestServer.adminToken)
            #expect(taken.status == .conflict, "\(taken.text)")
            let fragment = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": other.id]),
                json: ["resource_indicators": ["https://api.other.example/#x"]], bearer: TestServer.adminToken)
            #expect(fragment.status == .badRequest)
        }
    }

    @Test("registration checks the initial access token before software_id: no template oracle for strangers")
    func noTemplateOracle() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let template = try await Self.firstPartyTemplate(api, app)
            let plain = try await api.machineClient(app)
            var answers: [String] = []
            for softwareID in [template.id, plain.id, "umfa_ci_nothing"] {
                let reply = try await api.registration(
                    .post, app, json: ["software_id": .string(softwareID)], authorization: "Bearer umfa_iat_guess")
                #expect(reply.status == .unauthorized, "\(softwareID): \(reply.text)")
                answers.append(reply["error"]?.stringValue ?? "")
            }
            #expect(Set(answers) == ["invalid_token"])
        }
    }

    @Test("RFC 7592 updates racing with one registration access token: exactly one wins")
    func updateIsCompareAndSet() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app)
            let made = try await api.registration(
                .post, app, json: DynamicRegistrationTests.native, authorization: "Bearer " + token)
            let id = try #require(made["client_id"]?.stringValue)
            let management = try #require(made["registration_access_token"]?.stringValue)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let body = DynamicRegistrationTests.native.merging([
                            "client_id": .string(id), "client_name": .string("Racer \(index)"),
                        ])
                        return try await api.registration(
                            .put, app, client: id, json: body, authorization: "Bearer " + management
                        ).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 401 }.count == 7, "\(statuses)")
        }
    }
}
