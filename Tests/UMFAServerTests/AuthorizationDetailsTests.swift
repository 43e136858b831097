import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

/// RFC 9396 at the authorization and PAR endpoints (docs/ciba.md, "Authorization details"): only
/// the application's declared types; consent shows the canonical text and is asked each time;
/// the details come back in the token response, the access token, a refresh and introspection.
@Suite("Rich authorization requests at the authorization endpoint")
struct AuthorizationDetailsTests {
    static let payment = #"[{"type":"payment_initiation","instructedAmount":{"currency":"EUR","amount":"9.99"}}]"#

    static func declare(_ api: API, _ app: TestApplication) async throws {
        let patched = try await api.send(
            .patch, APIOperation.updateApplication.path(["id": app.id]),
            json: ["authorization_details_types": ["payment_initiation"]], bearer: TestServer.adminToken)
        #expect(patched.status == .ok, "\(patched.text)")
    }

    @Test("consent shows the details each time; the code's tokens, a refresh and introspection carry them")
    func codeFlow() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            try await Self.declare(api, app)
            let client = try await api.codeClient(app)
            let flow = Authorization()
            let page = try await api.authorize(
                app,
                flow.query(
                    client: client.id, scope: "openid offline_access",
                    extra: ["prompt": "create", "authorization_details": Self.payment]))
            let (interaction, _) = try API.page(page)
            let device = Device.make()
            let created = try await api.createAccount(
                app, interaction: interaction, email: "ann@example.com", device: device)
            #expect(created["next"]?.stringValue == "consent", "\(created.text)")
            #expect(
                created["authorization_details"]?.stringValue
                    == "type: \"payment_initiation\"\ninstructedAmount.amount: \"9.99\"\ninstructedAmount.currency: \"EUR\""
            )
            let allowed = try await api.consent(app, interaction: interaction, allow: true)
            let code = try #require(try allowed.redirectTo()["code"])
            let tokens = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(Self.payment.utf8))
            #expect(tokens["authorization_details"] == expected, "\(tokens.text)")
            let access = try #require(tokens["access_token"]?.stringValue)
            #expect(try CompactJWT(access).claims["authorization_details"] == expected)
            let refreshed = try await api.refresh(
                app, client: client, token: try #require(tokens["refresh_token"]?.stringValue))
            #expect(refreshed["authorization_details"] == expected, "\(refreshed.text)")
            let introspected = try await api.form(
                .oauthIntrospect, app, [("token", access)], basic: (client.id, try #require(client.secret)))
            #expect(introspected["authorization_details"] == expected)

            // The same client and person again: consent was given to the scopes, but details are
            // asked each time.
            let second = try await api.authorize(
                app,
                flow.query(
                    client: client.id, scope: "openid offline_access",
                    extra: ["prompt": "login", "authorization_details": Self.payment]))
            let (secondInteraction, _) = try API.page(second)
            let signedIn = try await api.signIn(app, interaction: secondInteraction, login: nil, device: device)
            #expect(signedIn["next"]?.stringValue == "consent", "\(signedIn.text)")
        }
    }

    @Test("an undeclared or malformed authorization_details is invalid_authorization_details, at both endpoints")
    func refused() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let client = try await api.codeClient(app)
            let flow = Authorization()
            // Nothing declared: even a well-formed value is refused.
            let undeclared = try await api.authorize(
                app, flow.query(client: client.id, scope: "openid", extra: ["authorization_details": Self.payment]))
            #expect(try undeclared.redirect()["error"] == "invalid_authorization_details")
            try await Self.declare(api, app)
            for bad in [
                #"[{"type":"account_information"}]"#, "{}", "[]", "not json",
                #"[{"type":"payment_initiation","actions":"pay"}]"#,
            ] {
                let reply = try await api.authorize(
                    app, flow.query(client: client.id, scope: "openid", extra: ["authorization_details": bad]))
                let redirect = try reply.redirect()
                #expect(redirect["error"] == "invalid_authorization_details", "\(bad)")
                #expect(redirect["state"] == flow.state && redirect["code"] == nil)
                let pushed = try await api.form(
                    .oauthPushedAuthorizationRequest, app,
                    flow.query(client: client.id, scope: "openid", extra: ["authorization_details": bad])
                        .sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    basic: (client.id, try #require(client.secret)))
                expectOAuthError(pushed, .badRequest, "invalid_authorization_details")
            }
            let pushed = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                flow.query(client: client.id, scope: "openid", extra: ["authorization_details": Self.payment])
                    .sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                basic: (client.id, try #require(client.secret)))
            #expect(pushed.status == .created, "\(pushed.text)")
        }
    }
}
