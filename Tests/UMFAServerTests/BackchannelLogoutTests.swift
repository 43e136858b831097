import Foundation
import Logging
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATestSupport

/// OpenID Connect Back-Channel Logout 1.0 on the server's side: the clients that registered a
/// `backchannel_logout_uri` are recorded with each sign-in's session, and the end of a session
/// queues exactly one logout token per such client, for that session only. (The tokens on the
/// wire, checked by PyJWT, and a failing client are in Tests/Interop/test_oauth_backchannel_logout.py.)
@Suite("Back-channel logout")
struct BackchannelLogoutTests {
    static let scope = "openid email"

    static func client(_ api: API, _ app: TestApplication, name: String, logoutURI: String?) async throws
        -> TestOAuthClient
    {
        var request = OAuthClientRequest(
            clientName: name, redirectURIs: [Authorization.redirectURI], grantTypes: ["authorization_code"],
            responseTypes: ["code"], scope: scope, postLogoutRedirectURIs: [LogoutConfirmationTests.bye],
            firstParty: true)
        request.backchannelLogoutURI = logoutURI
        return try await api.createOAuthClient(app, request)
    }

    /// The session's code for `client` (prompt=none) redeemed: the ID token's `sid`.
    static func joined(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, cookie: String) async throws
        -> String
    {
        let flow = Authorization()
        let silent = try await api.authorize(
            app, flow.query(client: client.id, scope: scope, extra: ["prompt": "none"]), cookie: cookie)
        let tokens = try await api.redeem(
            app, client: client, code: try #require(try silent.redirect()["code"]), verifier: flow.verifier)
        let idToken = try CompactJWT(try #require(tokens["id_token"]?.stringValue, "\(tokens.text)"))
        return try #require(idToken.claims["sid"]?.stringValue)
    }

    /// Every logout token in the outbox, with its stored claims (read by claiming them all: a claim
    /// leaves the rows in place).
    static func queued(_ api: API) async throws -> [(LogoutDeliveryRecord, JSONValue)] {
        let store = try await SQLiteStore.open(
            path: api.directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
        let rows = try await store.claimDueLogoutTokens(at: .distantFuture, leaseUntil: .distantFuture, limit: 100)
        try await store.close()
        return try rows.map { ($0, try JSONDecoder().decode(JSONValue.self, from: Data($0.body.utf8))) }
    }

    @Test("RP-initiated logout queues one token per client of that session that takes them, with its sid and sub")
    func sessionEnds() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let shop = try await Self.client(api, app, name: "Shop", logoutURI: "https://shop.example/bcl?x=1")
            let blog = try await Self.client(api, app, name: "Blog", logoutURI: nil)
            let forum = try await Self.client(api, app, name: "Forum", logoutURI: "http://127.0.0.1:9/logout")
            let (dan, danToken) = try await LogoutConfirmationTests.signedIn(api, app, shop, email: "dan@example.com")
            let sid = try #require(try CompactJWT(danToken).claims["sid"]?.stringValue)
            #expect(try await Self.joined(api, app, blog, cookie: dan) == sid)
            #expect(try await Self.joined(api, app, forum, cookie: dan) == sid)
            // A second code of the same session and client is one participant, not two.
            #expect(try await Self.joined(api, app, forum, cookie: dan) == sid)
            // Another person's session.
            _ = try await LogoutConfirmationTests.signedIn(api, app, shop, email: "eve@example.com")
            #expect(try await Self.queued(api).isEmpty)
            let out = try await api.browse(
                LogoutConfirmationTests.logoutPath(app), query: ["id_token_hint": danToken], cookie: dan)
            #expect(out.status == .ok || out.status == .seeOther, "\(out.text.prefix(200))")
            let queued = try await Self.queued(api)
            #expect(Set(queued.map(\.0.clientID)) == [shop.id, forum.id] && queued.count == 2, "\(queued.map(\.0))")
            for (delivery, claims) in queued {
                #expect(claims["sid"]?.stringValue == sid && claims["aud"]?.stringValue == delivery.clientID)
                #expect(claims["sub"]?.stringValue == (try CompactJWT(danToken).claims["sub"]?.stringValue))
                #expect(claims["events"] == ["http://schemas.openid.net/event/backchannel-logout": [:]])
                #expect(claims["nonce"] == nil && claims["jti"]?.stringValue == delivery.id)
            }
            #expect(queued.first { $0.0.clientID == shop.id }?.0.uri == "https://shop.example/bcl?x=1")

            // The session is over: nothing is queued twice.
            _ = try await api.browse(
                LogoutConfirmationTests.logoutPath(app), query: ["id_token_hint": danToken], cookie: dan)
            #expect(Set(try await Self.queued(api).map(\.0.id)) == Set(queued.map(\.0.id)))
        }
    }

    @Test("a pairwise client's id_token_hint ends the session at once, and its logout token names its own sub")
    func pairwise() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let shop = try await Self.client(api, app, name: "Shop", logoutURI: "https://shop.example/bcl")
            var request = OAuthClientRequest(
                clientName: "Pairwise", redirectURIs: [Authorization.redirectURI], grantTypes: ["authorization_code"],
                responseTypes: ["code"], scope: Self.scope, postLogoutRedirectURIs: [LogoutConfirmationTests.bye],
                firstParty: true)
            request.backchannelLogoutURI = "https://pairwise.example/bcl"
            request.subjectType = "pairwise"
            let pairwise = try await api.createOAuthClient(app, request)
            let (cookie, shopToken) = try await LogoutConfirmationTests.signedIn(
                api, app, shop, email: "fay@example.com")
            let flow = Authorization()
            let silent = try await api.authorize(
                app, flow.query(client: pairwise.id, scope: Self.scope, extra: ["prompt": "none"]), cookie: cookie)
            let tokens = try await api.redeem(
                app, client: pairwise, code: try #require(try silent.redirect()["code"]), verifier: flow.verifier)
            let hint = try #require(tokens["id_token"]?.stringValue)
            let pairwiseSub = try #require(try CompactJWT(hint).claims["sub"]?.stringValue)
            let pairwiseSID = try #require(try CompactJWT(hint).claims["sid"]?.stringValue)
            let userID = try #require(try CompactJWT(shopToken).claims["sub"]?.stringValue)
            let sid = try #require(try CompactJWT(shopToken).claims["sid"]?.stringValue)
            #expect(pairwiseSub != userID && pairwiseSID != sid, "no shared sub or sid to match users by")

            // The hint's sub is the pairwise one: it still names the browser's session.
            let out = try await api.browse(
                LogoutConfirmationTests.logoutPath(app),
                query: ["id_token_hint": hint, "post_logout_redirect_uri": LogoutConfirmationTests.bye],
                cookie: cookie)
            #expect(out.status == .seeOther, "ended at once, not asked: \(out.status) \(out.text.prefix(200))")
            let queued = try await Self.queued(api)
            #expect(queued.count == 2)
            for (delivery, claims) in queued {
                let isPairwise = delivery.clientID == pairwise.id
                #expect(claims["sub"]?.stringValue == (isPairwise ? pairwiseSub : userID), "\(delivery.clientID)")
                #expect(claims["sid"]?.stringValue == (isPairwise ? pairwiseSID : sid), "\(delivery.clientID)")
            }
        }
    }

    @Test("backchannel_logout_uri is https (http only on loopback), may carry a query, never a fragment")
    func uriRules() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            for refused in [
                "http://rp.example/logout", "https://rp.example/logout#x", "rp.example/logout", "ftp://a/b",
            ] {
                var request = OAuthClientRequest(clientName: "x", redirectURIs: [Authorization.redirectURI])
                request.backchannelLogoutURI = refused
                let reply = try await api.send(
                    .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
                    bearer: TestServer.adminToken)
                #expect(reply.status == .badRequest, "\(refused): \(reply.text)")
                #expect(reply["field"]?.stringValue == "backchannel_logout_uri" || reply.text.contains("backchannel"))
            }
            let accepted = try await Self.client(
                api, app, name: "RP", logoutURI: "https://rp.example/redirect_uri?logout=backchannel")
            let shown = try await api.send(
                .get, APIOperation.getOAuthClient.path(["id": app.id, "client_id": accepted.id]),
                bearer: TestServer.adminToken)
            #expect(
                shown["backchannel_logout_uri"]?.stringValue == "https://rp.example/redirect_uri?logout=backchannel")
            let metadata = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(metadata["backchannel_logout_supported"] == true)
            #expect(metadata["backchannel_logout_session_supported"] == true)
        }
    }

    @Test("a client that registers itself may not point backchannel_logout_uri at the server's own network")
    func selfRegisteredInternal() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app, uses: 10)
            for address in [
                "http://127.0.0.1:8080/admin", "https://10.0.0.5/x", "https://[::1]/x",
                "https://169.254.169.254/latest",
                "https://localhost/x", "https://192.168.1.1/x", "https://[fd00::1]/x", "https://[::ffff:127.0.0.1]/x",
            ] {
                let reply = try await api.registration(
                    .post, app,
                    json: [
                        "client_name": "Self", "redirect_uris": ["https://rp.example/cb"],
                        "backchannel_logout_uri": .string(address),
                    ], authorization: "Bearer \(token)")
                #expect(reply.status == .badRequest, "\(address): \(reply.text)")
                #expect(reply["error"]?.stringValue == "invalid_client_metadata", "\(address)")
            }
            let accepted = try await api.registration(
                .post, app,
                json: [
                    "client_name": "Self", "redirect_uris": ["https://rp.example/cb"],
                    "backchannel_logout_uri": "https://rp.example/bcl",
                ], authorization: "Bearer \(token)")
            #expect(accepted.status == .created, "\(accepted.text)")
            // An admin's client may use a loopback receiver (a sidecar).
            _ = try await Self.client(api, app, name: "Sidecar", logoutURI: "http://127.0.0.1:9/logout")
        }
    }
}
