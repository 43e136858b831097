import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// docs/contract.md §5 "authorization endpoint", "hosted pages", "users and profiles", "logout": what
/// the endpoint refuses and how, the SSO session and `prompt`, consent, sign-in by email, the
/// `signup` setting, profiles changed by the backend, and RP-initiated logout.
@Suite("OpenID Connect provider: hosted pages, sessions and profiles")
struct OIDCHostedPagesTests {
    static let scope = "openid email"

    @Test("an unknown client or redirect URI gets the error page, never a redirect; other errors go back to the client")
    func requestErrors() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app)
            let flow = Authorization()
            for query in [
                flow.query(client: "umfa_ci_unknown", scope: Self.scope),
                flow.query(client: client.id, scope: Self.scope, redirectURI: "https://evil.example/callback"),
                flow.query(client: client.id, scope: Self.scope, extra: ["redirect_uri": nil]),
            ] {
                let reply = try await api.authorize(app, query)
                #expect(reply.status == .badRequest, "\(reply.text.prefix(200))")
                #expect(reply.headers[.location] == nil)
                #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(reply.text.contains("not valid"))
            }
            let cases: [([String: String?], String)] = [
                (["code_challenge": nil], "invalid_request"),
                (["code_challenge_method": "plain"], "invalid_request"),
                (["code_challenge": "too-short"], "invalid_request"),
                (["response_type": "token"], "unsupported_response_type"),
                (["scope": "openid admin"], "invalid_scope"),
                (["prompt": "none login"], "invalid_request"),
                (["max_age": "-1"], "invalid_request"),
            ]
            for (extra, error) in cases {
                let reply = try await api.authorize(app, flow.query(client: client.id, scope: Self.scope, extra: extra))
                #expect(reply.status == .seeOther, "\(extra): \(reply.status) \(reply.text.prefix(200))")
                let redirect = try reply.redirect()
                #expect(redirect.base == Authorization.redirectURI)
                #expect(redirect["error"] == error, "\(extra)")
                #expect(redirect["state"] == flow.state)
                #expect(redirect["iss"] == "http://127.0.0.1:0/oidc/\(app.id.lowercased())")
            }
        }
    }

    @Test("the SSO cookie answers prompt=none and later requests; prompt=login, max_age and no cookie ask again")
    func ssoSession() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "ivy@example.com", device: Device.make())

            let flow = Authorization()
            let silent = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "none"]), cookie: cookie)
            #expect(silent.status == .seeOther)
            let code = try #require(try silent.redirect()["code"])
            #expect(try await api.redeem(app, client: client, code: code, verifier: flow.verifier).status == .ok)

            let again = try await api.authorize(app, flow.query(client: client.id, scope: Self.scope), cookie: cookie)
            #expect(again.status == .seeOther, "a live session skips the page")

            let anonymous = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "none"]))
            let refused = try anonymous.redirect()
            #expect(refused["error"] == "login_required" && refused["state"] == flow.state)

            let login = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "login"]), cookie: cookie)
            #expect(login.status == .ok)
            #expect(try API.page(login).view == "sign-in")
            api.clock.advance(by: 30)
            let aged = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["max_age": "10"]), cookie: cookie)
            #expect(aged.status == .ok, "a sign-in older than max_age asks again")
            let hinted = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["login_hint": "someone@else.example"]),
                cookie: cookie)
            #expect(hinted.status == .ok, "a login_hint naming someone else asks again")
            let sameHint = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["login_hint": "IVY@example.com"]),
                cookie: cookie)
            #expect(sameHint.status == .seeOther, "the signed-in user's email, in any case, is the same person")

            api.clock.advance(by: 8 * 3600)
            let expired = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "none"]), cookie: cookie)
            #expect(try expired.redirect()["error"] == "login_required")
        }
    }

    @Test(
        "consent: asked once per scope set, remembered, denial is access_denied; prompt=none without it is consent_required"
    )
    func consent() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app)
            let device = Device.make()
            let first = Authorization()
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: first, email: "jo@example.com", device: device, scope: "openid email")

            let wider = Authorization()
            let silent = try await api.authorize(
                app, wider.query(client: client.id, scope: "openid email profile", extra: ["prompt": "none"]),
                cookie: cookie)
            #expect(try silent.redirect()["error"] == "consent_required")

            let page = try await api.authorize(
                app, wider.query(client: client.id, scope: "openid email profile"), cookie: cookie)
            #expect(try API.page(page).view == "consent")
            let denied = try await api.consent(app, interaction: try API.page(page).interaction, allow: false)
            let redirect = try denied.redirectTo()
            #expect(redirect["error"] == "access_denied" && redirect["code"] == nil && redirect["state"] == wider.state)

            let same = try await api.authorize(
                app, first.query(client: client.id, scope: "openid email"), cookie: cookie)
            #expect(same.status == .seeOther, "the scopes consented to before need no new consent")
            let forced = try await api.authorize(
                app, first.query(client: client.id, scope: "openid email", extra: ["prompt": "consent"]), cookie: cookie
            )
            #expect(try API.page(forced).view == "consent")
        }
    }

    @Test("sign in by email (any case), by user id, or discoverable; an unknown email looks like a known one")
    func signInWays() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let device = Device.make()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "kim@example.com", device: device)
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: Authorization().verifier)
            #expect(tokens.status == .badRequest, "(the verifier was another flow's)")

            for login in ["KIM@example.com", nil] {
                let flow = Authorization()
                let page = try await api.authorize(app, flow.query(client: client.id, scope: Self.scope))
                let (interaction, view) = try API.page(page)
                #expect(view == "sign-in")
                let reply = try await api.signIn(app, interaction: interaction, login: login, device: device)
                #expect(reply.status == .ok, "\(login ?? "discoverable"): \(reply.text)")
                let code = try #require(try reply.redirectTo()["code"])
                let granted = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
                let claims = try CompactJWT(try #require(granted["id_token"]?.stringValue)).claims
                #expect(claims["email"]?.stringValue == "kim@example.com")
            }

            let page = try await api.authorize(app, Authorization().query(client: client.id, scope: Self.scope))
            let interaction = try API.page(page).interaction
            let known = try await api.interaction(
                .interactionSignInOptions, app,
                InteractionSignInOptionsRequest(interaction: interaction, login: "kim@example.com"))
            let unknown = try await api.interaction(
                .interactionSignInOptions, app,
                InteractionSignInOptionsRequest(interaction: interaction, login: "nobody@example.com"))
            #expect(known.status == .ok && unknown.status == .ok)
            #expect(known["publicKey"]?["allowCredentials"]?.arrayValue?.count == 1)
            #expect(unknown["publicKey"]?["allowCredentials"]?.arrayValue?.count == 1)
        }
    }

    @Test(
        "email is unique per application, case-insensitively; signup disabled refuses new accounts; bad profiles are 400"
    )
    func accountRules() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let otherClient = try await api.codeClient(other, firstParty: true)
            _ = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "lee@example.com", device: Device.make())

            let page = try await api.authorize(app, Authorization().query(client: client.id, scope: Self.scope))
            let interaction = try API.page(page).interaction
            let taken = try await api.interaction(
                .interactionCreateAccountOptions, app,
                InteractionCreateAccountRequest(interaction: interaction, email: "LEE@example.com"))
            #expect(taken.status == .conflict, "\(taken.text)")
            for email in [
                "not-an-email", "a b@example.com", "lee@", String(repeating: "a", count: 250) + "@example.com",
            ] {
                let reply = try await api.interaction(
                    .interactionCreateAccountOptions, app,
                    InteractionCreateAccountRequest(interaction: interaction, email: email))
                #expect(reply.status == .badRequest, "\(email): \(reply.text)")
            }
            // The same address in another application is another person.
            _ = try await api.signUpThroughFlow(
                other, client: otherClient, flow: Authorization(), email: "lee@example.com", device: Device.make())

            let patch = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: try .encoding(ApplicationSettingsRequest(ApplicationSettings(signup: "disabled"))),
                bearer: TestServer.adminToken)
            #expect(patch.status == .ok && patch["signup"]?.stringValue == "disabled", "\(patch.text)")
            let closed = try await api.authorize(
                app, Authorization().query(client: client.id, scope: Self.scope, extra: ["prompt": "create"]))
            #expect(try API.page(closed).view == "sign-in", "no account creation view when signup is disabled")
            let refused = try await api.interaction(
                .interactionCreateAccountOptions, app,
                InteractionCreateAccountRequest(interaction: try API.page(closed).interaction, email: "new@example.com")
            )
            #expect(refused.status == .forbidden)
            let expired = try await api.interaction(
                .interactionSignInOptions, app, InteractionSignInOptionsRequest(interaction: "made-up"))
            #expect(expired.status == .unauthorized && expired["message"]?.stringValue?.contains("expired") == true)
        }
    }

    @Test(
        "the backend changes a profile with its API key; userinfo shows it; another's key or a taken email is refused")
    func profileUpdates() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "max@example.com", device: Device.make(),
                scope: "openid email phone profile")
            _ = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "taken@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            let access = try #require(tokens["access_token"]?.stringValue)
            let sub = try #require(try CompactJWT(access).claims["sub"]?.stringValue)
            let path = APIOperation.updateUserProfile.path(["user_id": sub])

            let changed = try await api.send(
                .patch, path,
                json: try .encoding(
                    UserProfileRequest(applicationID: app.id, emailVerified: true, givenName: "Maxine", phoneNumber: "")
                ),
                bearer: app.apiKey)
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed["email_verified"]?.boolValue == true && changed["given_name"]?.stringValue == "Maxine")
            #expect(changed["phone_number"] == nil || changed["phone_number"] == .null)
            let info = try await api.userinfo(app, token: access)
            #expect(info["email_verified"]?.boolValue == true && info["given_name"]?.stringValue == "Maxine")
            #expect(info["phone_number"] == nil)

            let moved = try await api.send(
                .patch, path, json: try .encoding(UserProfileRequest(applicationID: app.id, email: "Max2@example.com")),
                bearer: app.apiKey)
            #expect(moved["email_verified"]?.boolValue == false, "a new address is not verified")
            let conflict = try await api.send(
                .patch, path,
                json: try .encoding(UserProfileRequest(applicationID: app.id, email: "TAKEN@example.com")),
                bearer: app.apiKey)
            #expect(conflict.status == .conflict)
            let foreign = try await api.send(
                .patch, path, json: try .encoding(UserProfileRequest(applicationID: app.id, givenName: "X")),
                bearer: other.apiKey)
            #expect(foreign.status == .unauthorized)
            let unknown = try await api.send(
                .patch, APIOperation.updateUserProfile.path(["user_id": "nobody"]),
                json: try .encoding(UserProfileRequest(applicationID: app.id, givenName: "X")), bearer: app.apiKey)
            #expect(unknown.status == .notFound)
            let after = try await api.userinfo(app, token: access)
            #expect(after["email"]?.stringValue == "Max2@example.com" && after["given_name"]?.stringValue == "Maxine")
        }
    }

    @Test("logout ends the session and returns to a registered post_logout_redirect_uri only")
    func logout() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, postLogout: ["https://rp.example/bye"])
            let flow = Authorization()
            let (redirect, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "ned@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let logoutPath = APIOperation.oauthLogout.path(["application_id": app.id])

            let bad = try await api.browse(
                logoutPath, query: ["id_token_hint": idToken, "post_logout_redirect_uri": "https://evil.example/"],
                cookie: cookie)
            #expect(bad.status == .badRequest && bad.headers[.location] == nil)

            let out = try await api.browse(
                logoutPath,
                query: ["id_token_hint": idToken, "post_logout_redirect_uri": "https://rp.example/bye", "state": "s1"],
                cookie: cookie)
            #expect(out.status == .seeOther)
            #expect(out.headers[.location] == "https://rp.example/bye?state=s1")
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            let silent = try await api.authorize(
                app, Authorization().query(client: client.id, scope: Self.scope, extra: ["prompt": "none"]),
                cookie: cookie)
            #expect(try silent.redirect()["error"] == "login_required")
        }
    }

    @Test("a public client (none) redeems with PKCE alone; discovery lists the code flow")
    func publicClient() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, method: "none")
            #expect(client.secret == nil)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "ola@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            #expect(tokens.status == .ok, "\(tokens.text)")

            let discovery = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            let issuer = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"
            #expect(discovery["authorization_endpoint"]?.stringValue == issuer + "/authorize")
            #expect(discovery["userinfo_endpoint"]?.stringValue == issuer + "/userinfo")
            #expect(discovery["end_session_endpoint"]?.stringValue == issuer + "/logout")
            #expect(discovery["response_types_supported"]?.arrayValue?.compactMap(\.stringValue) == ["code"])
            #expect(discovery["code_challenge_methods_supported"]?.arrayValue?.compactMap(\.stringValue) == ["S256"])
            #expect(discovery["authorization_response_iss_parameter_supported"]?.boolValue == true)
            #expect(
                discovery["subject_types_supported"]?.arrayValue?.compactMap(\.stringValue) == ["public", "pairwise"])
            #expect(discovery["grant_types_supported"]?.arrayValue?.count == 5)
        }
    }

    @Test("PAR: the pushed request works once with its client_id; a client that requires PAR cannot skip it")
    func pushedAuthorizationRequests() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let secret = try #require(client.secret)
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "par@example.com", device: Device.make())
            let flow = Authorization()
            let pushed = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                flow.query(client: client.id, scope: Self.scope).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                basic: (client.id, secret))
            #expect(pushed.status == .created, "\(pushed.text)")
            #expect(pushed["expires_in"]?.intValue == 60)
            let requestURI = try #require(pushed["request_uri"]?.stringValue)
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))

            let redirect = try await api.authorize(
                app, ["client_id": client.id, "request_uri": requestURI], cookie: cookie)
            let code = try #require(try redirect.redirect()["code"])
            #expect(try redirect.redirect()["state"] == flow.state)
            #expect(try await api.redeem(app, client: client, code: code, verifier: flow.verifier).status == .ok)
            let again = try await api.authorize(
                app, ["client_id": client.id, "request_uri": requestURI], cookie: cookie)
            #expect(again.status == .badRequest && again.headers[.location] == nil, "a request_uri works once")

            // Errors at the PAR endpoint are OAuth errors, not redirects or pages.
            expectOAuthError(
                try await api.form(
                    .oauthPushedAuthorizationRequest, app,
                    [
                        ("response_type", "code"), ("redirect_uri", "https://evil.example/"),
                        ("code_challenge", flow.challenge),
                        ("code_challenge_method", "S256"),
                    ], basic: (client.id, secret)),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await api.form(
                    .oauthPushedAuthorizationRequest, app,
                    flow.query(client: client.id, scope: Self.scope, extra: ["code_challenge_method": "plain"])
                        .map { ($0.key, $0.value) }, basic: (client.id, secret)),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await api.form(
                    .oauthPushedAuthorizationRequest, app,
                    flow.query(client: client.id, scope: Self.scope).map { ($0.key, $0.value) },
                    basic: (client.id, "wrong")),
                .unauthorized, "invalid_client")

            let strict = try await api.createOAuthClient(
                app,
                OAuthClientRequest(
                    clientName: "Strict", redirectURIs: [Authorization.redirectURI],
                    grantTypes: ["authorization_code"], responseTypes: ["code"], scope: "openid email",
                    firstParty: true, requirePushedAuthorizationRequests: true))
            let skipped = try await api.authorize(app, flow.query(client: strict.id, scope: Self.scope), cookie: cookie)
            #expect(try skipped.redirect()["error"] == "invalid_request")
            let expiring = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                flow.query(client: strict.id, scope: Self.scope).map { ($0.key, $0.value) },
                basic: (strict.id, try #require(strict.secret)))
            api.clock.advance(by: 61)
            let late = try await api.authorize(
                app, ["client_id": strict.id, "request_uri": try #require(expiring["request_uri"]?.stringValue)],
                cookie: cookie)
            #expect(late.status == .badRequest && late.text.contains("expired"))
        }
    }
}
