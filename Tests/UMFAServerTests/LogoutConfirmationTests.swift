import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract

/// Logout (docs/security-reviews.md, "RP-initiated logout by any page"): OpenID Connect RP-Initiated Logout 1.0
/// §2. Only an `id_token_hint` of the browser's current session ends it at once; without one,
/// the person confirms on a page whose form POSTs a CSRF token bound to the session, so a
/// third-party page cannot sign anyone out with a link.
@Suite("RP-initiated logout asks the person unless the hint names their session")
struct LogoutConfirmationTests {
    static let scope = "openid email"
    static let bye = "https://rp.example/bye"

    /// A signed-up user of a first-party client: the SSO cookie and the ID token.
    static func signedIn(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, email: String) async throws
        -> (cookie: String, idToken: String)
    {
        let flow = Authorization()
        let (redirect, cookie) = try await api.signUpThroughFlow(
            app, client: client, flow: flow, email: email, device: Device.make(), scope: scope)
        let tokens = try await api.redeem(
            app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
        return (cookie, try #require(tokens["id_token"]?.stringValue, "\(tokens.text)"))
    }

    /// Whether the session still answers `prompt=none` with a code.
    static func sessionAlive(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, cookie: String)
        async throws -> Bool
    {
        let silent = try await api.authorize(
            app, Authorization().query(client: client.id, scope: scope, extra: ["prompt": "none"]), cookie: cookie)
        return try silent.redirect()["code"] != nil
    }

    static func logoutPath(_ app: TestApplication) -> String {
        APIOperation.oauthLogout.path(["application_id": app.id])
    }

    /// A form POST to the logout endpoint, as the confirmation page's form sends it.
    static func post(_ api: API, _ app: TestApplication, _ fields: [(String, String)], cookie: String?)
        async throws -> Reply
    {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        let body = fields.map { API.formEncode($0.0) + "=" + API.formEncode($0.1) }.joined(separator: "&")
        let response = try await api.client.execute(
            uri: APIOperation.oauthLogoutPost.path(["application_id": app.id]), method: .post, headers: headers,
            body: ByteBuffer(string: body))
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body), json: nil)
    }

    /// The value of the hidden input `name` on a page.
    static func hidden(_ name: String, in page: Reply) throws -> String {
        let marker = "name=\"\(name)\" value=\""
        guard let start = page.text.range(of: marker), let end = page.text[start.upperBound...].firstIndex(of: "\"")
        else { throw TestFailure("no \(name) on the page: \(page.text.prefix(400))") }
        return String(page.text[start.upperBound..<end])
    }

    static func setup(_ api: API) async throws -> (TestApplication, TestOAuthClient) {
        let app = try await api.createApplication(policy: "grant")
        return (app, try await api.codeClient(app, firstParty: true, scope: scope, postLogout: [bye]))
    }

    @Test("a logout link without id_token_hint shows a confirmation form and ends nothing")
    func noHintAsks() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let (cookie, _) = try await Self.signedIn(api, app, client, email: "ann@example.com")
            let page = try await api.browse(Self.logoutPath(app), cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.headers[.setCookie] == nil && page.headers[.location] == nil)
            #expect(page.text.contains("<form id=\"logout-form\" method=\"post\""))
            #expect(page.text.contains("<button id=\"logout_confirm\" name=\"logout_confirm\""))
            #expect(!page.text.contains("<script"))
            #expect(!(try Self.hidden("csrf_token", in: page)).isEmpty)
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'self'"))
            #expect(!csp.contains("unsafe-inline"))
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(try await Self.sessionAlive(api, app, client, cookie: cookie))
        }
    }

    @Test("the confirmation POST with the page's token ends the session and returns to the registered URI")
    func confirmationEnds() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let (cookie, _) = try await Self.signedIn(api, app, client, email: "bea@example.com")
            let page = try await api.browse(
                Self.logoutPath(app),
                query: ["client_id": client.id, "post_logout_redirect_uri": Self.bye, "state": "s1"], cookie: cookie)
            #expect(page.status == .ok)
            // CSP form-action also governs the redirect after the POST: the registered origin only.
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://rp.example;") == true)
            let fields = try ["csrf_token", "client_id", "post_logout_redirect_uri", "state"].map {
                ($0, try Self.hidden($0, in: page))
            }
            #expect(try Self.hidden("post_logout_redirect_uri", in: page) == Self.bye)
            let out = try await Self.post(api, app, fields + [("logout_confirm", "yes")], cookie: cookie)
            #expect(out.status == .seeOther)
            #expect(out.headers[.location] == Self.bye + "?state=s1")
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await !Self.sessionAlive(api, app, client, cookie: cookie))
        }
    }

    @Test("a forged confirmation (no token, a wrong one, another session's) is 403 and ends nothing")
    func forgedConfirmation() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let (victim, _) = try await Self.signedIn(api, app, client, email: "cat@example.com")
            let (attacker, _) = try await Self.signedIn(api, app, client, email: "eve@example.com")
            let attackersPage = try await api.browse(Self.logoutPath(app), cookie: attacker)
            let attackersToken = try Self.hidden("csrf_token", in: attackersPage)
            for fields in [
                [("logout_confirm", "yes")], [("logout_confirm", "yes"), ("csrf_token", "AAAA")],
                [("logout_confirm", "yes"), ("csrf_token", attackersToken)],
            ] {
                let refused = try await Self.post(api, app, fields, cookie: victim)
                #expect(refused.status == .forbidden, "\(fields)")
                #expect(refused.headers[.setCookie] == nil && refused.headers[.location] == nil)
            }
            #expect(try await Self.sessionAlive(api, app, client, cookie: victim))
            #expect(try await Self.sessionAlive(api, app, client, cookie: attacker))
        }
    }

    @Test(
        "a hint of another user's session, or one this issuer did not sign, asks too; the session's own hint does not")
    func hints() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let (victim, victimsToken) = try await Self.signedIn(api, app, client, email: "dan@example.com")
            let (_, attackersToken) = try await Self.signedIn(api, app, client, email: "eve@example.com")
            for hint in [attackersToken, "not.a.token", String(victimsToken.dropLast(4)) + "AAAA"] {
                let page = try await api.browse(
                    Self.logoutPath(app), query: ["id_token_hint": hint, "state": "x"], cookie: victim)
                #expect(page.status == .ok && page.text.contains("name=\"logout_confirm\""), "\(page.text.prefix(300))")
                #expect(page.headers[.setCookie] == nil)
            }
            #expect(try await Self.sessionAlive(api, app, client, cookie: victim))
            let out = try await api.browse(
                Self.logoutPath(app), query: ["id_token_hint": victimsToken, "post_logout_redirect_uri": Self.bye],
                cookie: victim)
            #expect(out.status == .seeOther && out.headers[.location] == Self.bye)
            #expect(try await !Self.sessionAlive(api, app, client, cookie: victim))
        }
    }

    @Test("a relying party's logout by POST goes on as the GET, so the session cookie decides")
    func relyingPartyPost() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let (cookie, idToken) = try await Self.signedIn(api, app, client, email: "eli@example.com")
            let posted = try await Self.post(
                api, app, [("id_token_hint", idToken), ("post_logout_redirect_uri", Self.bye), ("state", "s 2")],
                cookie: nil)
            #expect(posted.status == .seeOther && posted.headers[.setCookie] == nil)
            let location = try #require(posted.headers[.location])
            #expect(
                location.hasPrefix(Self.logoutPath(app).lowercased() + "?")
                    || location.hasPrefix(Self.logoutPath(app) + "?"))
            #expect(try await Self.sessionAlive(api, app, client, cookie: cookie))
            let out = try await api.browse(location, cookie: cookie)
            #expect(out.status == .seeOther && out.headers[.location] == Self.bye + "?state=s%202")
            #expect(try await !Self.sessionAlive(api, app, client, cookie: cookie))
        }
    }

    @Test("without a session there is nothing to confirm: signed out, back to the registered URI")
    func noSession() async throws {
        try await TestServer.with { api in
            let (app, client) = try await Self.setup(api)
            let out = try await api.browse(
                Self.logoutPath(app), query: ["client_id": client.id, "post_logout_redirect_uri": Self.bye])
            #expect(out.status == .seeOther && out.headers[.location] == Self.bye)
            let page = try await api.browse(Self.logoutPath(app))
            #expect(page.status == .ok && !page.text.contains("logout_confirm") && page.text.contains("signed out"))
        }
    }

    static let phishing = "https://phishing.example/landing"

    /// The attacker's own client, registered with an initial access token as anyone holding one
    /// may, with its own post-logout URI; then the attacker signs up through it: its SSO cookie
    /// and its own ID token (`aud` = that client).
    static func attacker(_ api: API, _ app: TestApplication) async throws -> (cookie: String, idToken: String) {
        let token = try await api.initialAccessToken(app)
        let made = try await api.registration(
            .post, app,
            json: [
                "client_name": "Eve's page", "redirect_uris": [.string(Authorization.redirectURI)],
                "post_logout_redirect_uris": [.string(phishing)], "scope": .string(scope),
            ], authorization: "Bearer " + token)
        let client = TestOAuthClient(
            id: try #require(made["client_id"]?.stringValue, "\(made.text)"), secret: made["client_secret"]?.stringValue
        )
        return try await signedIn(api, app, client, email: "eve@example.com")
    }

    /// An open redirect by a self-registered client (RP-Initiated Logout 1.0 §2, §3): the
    /// attacker's own ID token names the attacker's client, whose post-logout URI the attacker
    /// chose. Sent by a victim's browser (no session, or the victim's own), fresh or expired, it
    /// ends on this site's signed-out page, never in a redirect; only the attacker's own session
    /// with its unexpired hint goes back (§2).
    static func ownHintNoOpenRedirect(_ api: API) async throws {
        let (app, client) = try await setup(api)
        let (eveCookie, eveToken) = try await attacker(api, app)
        let (victim, _) = try await signedIn(api, app, client, email: "vic@example.com")
        let query = ["id_token_hint": eveToken, "post_logout_redirect_uri": phishing, "state": "s"]
        func expectSignedOutPage(_ reply: Reply, _ label: String) {
            #expect(reply.status == .ok, "\(label): \(reply.status) \(reply.headers[.location] ?? "")")
            #expect(reply.headers[.location] == nil, "\(label)")
            #expect(reply.text.contains("signed out") && !reply.text.contains("phishing.example"), "\(label)")
        }
        // A browser without a session: nothing to confirm, and no redirect either.
        expectSignedOutPage(try await api.browse(logoutPath(app), query: query), "no session, fresh hint")
        // The victim's session: the confirmation carries no post-logout URI on to the POST.
        let page = try await api.browse(logoutPath(app), query: query, cookie: victim)
        #expect(page.status == .ok && page.text.contains("name=\"logout_confirm\""), "\(page.text.prefix(300))")
        #expect(!page.text.contains("phishing.example"))
        #expect(page.headers[.contentSecurityPolicy]?.contains("phishing.example") == false)
        let fields = try ["csrf_token", "client_id", "post_logout_redirect_uri", "state"].map {
            ($0, try hidden($0, in: page))
        }
        expectSignedOutPage(
            try await post(api, app, fields + [("logout_confirm", "yes")], cookie: victim), "victim confirms")
        #expect(try await !sessionAlive(api, app, client, cookie: victim))
        // Expired (the ID token lives as long as the access token, 600 s; the SSO session 8 h).
        api.clock.advance(by: 601)
        expectSignedOutPage(try await api.browse(logoutPath(app), query: query), "no session, expired hint")
        // The attacker's own session with its own expired hint: signed out, not sent on.
        expectSignedOutPage(try await api.browse(logoutPath(app), query: query, cookie: eveCookie), "own expired")
        #expect(try await !sessionAlive(api, app, client, cookie: eveCookie))
    }

    @Test(
        "RP-initiated logout: a self-registered client's own ID token (fresh, expired, another session's) never redirects"
    )
    func ownHintNoOpenRedirectInLayer() async throws {
        try await TestServer.with { api in try await Self.ownHintNoOpenRedirect(api) }
    }

    @Test("RP-initiated logout, over HTTP: the attacker's own ID token never redirects from a live server")
    func ownHintNoOpenRedirectLive() async throws {
        try await TestServer.with(.live) { api in try await Self.ownHintNoOpenRedirect(api) }
    }

    @Test("a self-registered client goes back to its post-logout URI with a fresh hint of the browser's session")
    func selfRegisteredOwnSessionReturns() async throws {
        try await TestServer.with { api in
            let (app, _) = try await Self.setup(api)
            let (cookie, idToken) = try await Self.attacker(api, app)
            let out = try await api.browse(
                Self.logoutPath(app),
                query: ["id_token_hint": idToken, "post_logout_redirect_uri": Self.phishing, "state": "s"],
                cookie: cookie)
            #expect(out.status == .seeOther && out.headers[.location] == Self.phishing + "?state=s")
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
        }
    }

    @Test("a self-registered client's post-logout URI is followed only with an id_token_hint (no open redirect)")
    func selfRegisteredNoOpenRedirect() async throws {
        try await TestServer.with { api in
            let (app, _) = try await Self.setup(api)
            let token = try await api.initialAccessToken(app)
            let phishing = "https://phishing.example/landing"
            let made = try await api.registration(
                .post, app,
                json: [
                    "redirect_uris": ["https://phishing.example/cb"], "post_logout_redirect_uris": [.string(phishing)],
                ], authorization: "Bearer " + token)
            let id = try #require(made["client_id"]?.stringValue, "\(made.text)")
            let out = try await api.browse(
                Self.logoutPath(app), query: ["client_id": id, "post_logout_redirect_uri": phishing])
            #expect(out.status == .ok && out.headers[.location] == nil, "\(out.headers[.location] ?? "")")
            #expect(out.text.contains("signed out"))
        }
    }
}
