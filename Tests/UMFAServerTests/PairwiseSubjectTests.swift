import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

/// OpenID Connect Core §8.1 (docs/oidc-provider.md, "Pairwise subjects"): a pairwise client's
/// `sub` is its sector's alone; the ID token, userinfo, the access token, introspection and a
/// refresh agree on it; the user behind a pairwise access token is sealed in it, so deleting the
/// passkey still ends the token; and the settings' rules, including the sector identifier of a
/// client that registered itself at a private address.
@Suite("OpenID Connect provider: pairwise subject identifiers")
struct PairwiseSubjectTests {
    static let scope = "openid email offline_access"

    /// An admin-made first-party code client with `redirects` and `subject_type`.
    static func client(_ api: API, _ app: TestApplication, redirects: [String], type: String = "pairwise")
        async throws -> TestOAuthClient
    {
        var request = OAuthClientRequest(
            clientName: "RP", redirectURIs: redirects, grantTypes: ["authorization_code", "refresh_token"],
            responseTypes: ["code"], tokenEndpointAuthMethod: "client_secret_basic", scope: scope, firstParty: true)
        request.subjectType = type
        return try await api.createOAuthClient(app, request)
    }

    /// The token answer for `client` at `redirect`, through the SSO session of `cookie`.
    static func tokens(
        _ api: API, _ app: TestApplication, _ client: TestOAuthClient, redirect: String, cookie: String
    ) async throws -> Reply {
        let flow = Authorization()
        let answer = try await api.authorize(
            app, flow.query(client: client.id, scope: scope, redirectURI: redirect), cookie: cookie)
        let code = try #require(try answer.redirect()["code"], "\(answer.status) \(answer.text.prefix(200))")
        let tokens = try await api.redeem(
            app, client: client, code: code, verifier: flow.verifier, redirectURI: redirect)
        #expect(tokens.status == .ok, "\(tokens.text)")
        return tokens
    }

    static func claims(_ token: String?) throws -> JSONValue { try CompactJWT(try #require(token)).claims }

    @Test("two sectors see two subs and one sector one; userinfo, the access token and introspection agree")
    func sectors() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let first = try await Self.client(api, app, redirects: ["https://a.example/cb"])
            let sameSector = try await Self.client(api, app, redirects: ["https://A.example/other"])
            let other = try await Self.client(api, app, redirects: ["https://b.example/cb"])
            let shop = try await Self.client(api, app, redirects: [Authorization.redirectURI], type: "public")
            let signUp = Authorization()
            let (redirect, cookie) = try await api.signUpThroughFlow(
                app, client: shop, flow: signUp, email: "pat@example.com", device: Device.make(), scope: Self.scope)
            let publicAnswer = try await api.redeem(
                app, client: shop, code: try #require(redirect["code"]), verifier: signUp.verifier)
            let userID = try #require(try Self.claims(publicAnswer["id_token"]?.stringValue)["sub"]?.stringValue)

            let a = try await Self.tokens(api, app, first, redirect: "https://a.example/cb", cookie: cookie)
            let a2 = try await Self.tokens(api, app, sameSector, redirect: "https://A.example/other", cookie: cookie)
            let b = try await Self.tokens(api, app, other, redirect: "https://b.example/cb", cookie: cookie)
            let subA = try #require(try Self.claims(a["id_token"]?.stringValue)["sub"]?.stringValue)
            let subB = try #require(try Self.claims(b["id_token"]?.stringValue)["sub"]?.stringValue)
            #expect(try Self.claims(a2["id_token"]?.stringValue)["sub"]?.stringValue == subA, "one sector, one sub")
            #expect(subA != subB && subA != userID && subB != userID)
            #expect(subA.utf8.count == 43 && Base64URL.decode(subA)?.count == 32)

            // The access token names the client's sub and nothing another client could match.
            let accessToken = try #require(b["access_token"]?.stringValue)
            let atClaims = try Self.claims(accessToken)
            #expect(atClaims["sub"]?.stringValue == subB)
            #expect(atClaims["credential_id"] == nil && atClaims["umfa_sub_ref"]?.stringValue != nil)
            #expect(!accessToken.contains(userID))

            let userinfo = try await api.userinfo(app, token: accessToken)
            #expect(userinfo["sub"]?.stringValue == subB, "\(userinfo.text)")
            #expect(userinfo["email"]?.stringValue == "pat@example.com")

            let basic = (other.id, try #require(other.secret))
            let introspected = try await api.form(.oauthIntrospect, app, [("token", accessToken)], basic: basic)
            #expect(introspected["active"]?.boolValue == true && introspected["sub"]?.stringValue == subB)
            let refresh = try #require(b["refresh_token"]?.stringValue)
            let refreshView = try await api.form(.oauthIntrospect, app, [("token", refresh)], basic: basic)
            #expect(refreshView["sub"]?.stringValue == subB, "\(refreshView.text)")
            let refreshed = try await api.refresh(app, client: other, token: refresh)
            #expect(try Self.claims(refreshed["id_token"]?.stringValue)["sub"]?.stringValue == subB)

            // The sealed user still ends the token with its passkey.
            let credentials = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": userID]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            let credentialID = try #require(
                credentials["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue)
            let removed = try await api.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": userID, "credential_id": credentialID])
                    + "?application_id=\(app.id)&confirm_last=true", bearer: app.apiKey)
            #expect(removed.status == .ok, "\(removed.text)")
            #expect(try await api.userinfo(app, token: accessToken).status == .unauthorized)
        }
    }

    @Test("settings: subject_type is public or pairwise; several hosts need a sector_identifier_uri, https only")
    func settings() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let path = APIOperation.createOAuthClient.path(["id": app.id])
            let base: [String: JSONValue] = [
                "client_name": "RP", "grant_types": ["authorization_code"], "response_types": ["code"],
                "redirect_uris": ["https://a.example/cb", "https://b.example/cb"],
            ]
            func create(_ members: [String: JSONValue]) async throws -> Reply {
                try await api.post(path, .object(base.merging(members) { $1 }), bearer: TestServer.adminToken)
            }
            let unknown = try await create(["subject_type": "secret"])
            #expect(unknown.status == .badRequest && unknown.text.contains("subject_type"), "\(unknown.text)")
            let twoHosts = try await create(["subject_type": "pairwise"])
            #expect(twoHosts.status == .badRequest && twoHosts.text.contains("sector_identifier_uri"))
            let plain = try await create([
                "subject_type": "pairwise", "sector_identifier_uri": "http://a.example/s.json",
            ])
            #expect(plain.status == .badRequest && plain.text.contains("https"), "\(plain.text)")
            let unreachable = try await create([
                "subject_type": "pairwise", "sector_identifier_uri": "https://127.0.0.1:1/sector.json",
            ])
            #expect(unreachable.status == .badRequest, "a document that cannot be fetched refuses the client")
            let listed = try await api.send(.get, path, bearer: TestServer.adminToken)
            #expect(listed["clients"]?.arrayValue?.isEmpty == true, "nothing stored")

            let publicAnswer = try await create(["subject_type": "public"])
            #expect(publicAnswer.status == .created && publicAnswer["subject_type"]?.stringValue == "public")
            let discovery = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(
                discovery["subject_types_supported"]?.arrayValue?.compactMap(\.stringValue) == ["public", "pairwise"])
        }
    }

    @Test("a sector is proven: a self-registered or private-use client is its own; an update may not move it")
    func provenSectors() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let admin = try await Self.client(api, app, redirects: ["https://a.example/cb"])
            let native = try await Self.client(api, app, redirects: ["com.a.example.app:/cb"])
            let token = try await api.initialAccessToken(app, uses: 1)
            let registered = try await api.registration(
                .post, app,
                json: [
                    "redirect_uris": ["https://a.example/cb"], "subject_type": "pairwise",
                    "grant_types": ["authorization_code"], "scope": "openid email",
                ], authorization: "Bearer " + token)
            #expect(registered.status == .created, "\(registered.text)")
            let claimed = TestOAuthClient(
                id: try #require(registered["client_id"]?.stringValue),
                secret: registered["client_secret"]?.stringValue)
            let shop = try await Self.client(api, app, redirects: [Authorization.redirectURI], type: "public")
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: shop, flow: Authorization(), email: "lee@example.com", device: Device.make(),
                scope: Self.scope)
            let subAdmin = try #require(
                try Self.claims(
                    try await Self.tokens(api, app, admin, redirect: "https://a.example/cb", cookie: cookie)[
                        "id_token"]?.stringValue)["sub"]?.stringValue)
            let subNative = try #require(
                try Self.claims(
                    try await Self.tokens(api, app, native, redirect: "com.a.example.app:/cb", cookie: cookie)[
                        "id_token"]?.stringValue)["sub"]?.stringValue)
            // The self-registered client names a.example but never proved it: it needs consent.
            let flow = Authorization()
            let page = try await api.authorize(
                app, flow.query(client: claimed.id, scope: "openid", redirectURI: "https://a.example/cb"),
                cookie: cookie)
            let (interaction, _) = try API.page(page)
            let consented = try await api.consent(app, interaction: interaction, allow: true)
            let code = try #require(try consented.redirectTo()["code"], "\(consented.text)")
            let claimedTokens = try await api.redeem(
                app, client: claimed, code: code, verifier: flow.verifier, redirectURI: "https://a.example/cb")
            let subClaimed = try #require(try Self.claims(claimedTokens["id_token"]?.stringValue)["sub"]?.stringValue)
            #expect(Set([subAdmin, subNative, subClaimed]).count == 3, "three sectors")

            // Every sub the client knows is of its sector: an update may not move it.
            let moved = try await api.send(
                .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": admin.id]),
                json: ["redirect_uris": ["https://b.example/cb"]], bearer: TestServer.adminToken)
            #expect(moved.status == .badRequest && moved.text.contains("sector"), "\(moved.text)")
            let turnedPublic = try await api.send(
                .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": admin.id]),
                json: ["subject_type": "public"], bearer: TestServer.adminToken)
            #expect(turnedPublic.status == .badRequest)
        }
    }

    @Test("a client that registers itself may not have its sector identifier fetched from a private address")
    func privateSector() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let token = try await api.initialAccessToken(app, uses: 3)
            for address in [
                "https://127.0.0.1/sector.json", "https://10.1.2.3/s", "https://[::1]/s", "https://localhost/s",
            ] {
                let reply = try await api.registration(
                    .post, app,
                    json: [
                        "redirect_uris": ["https://a.example/cb"], "subject_type": "pairwise",
                        "sector_identifier_uri": .string(address),
                    ], authorization: "Bearer " + token)
                expectOAuthError(reply, .badRequest, "invalid_client_metadata")
            }
            let allowed = try await api.registration(
                .post, app, json: ["redirect_uris": ["https://a.example/cb"], "subject_type": "pairwise"],
                authorization: "Bearer " + token)
            #expect(allowed.status == .created && allowed["subject_type"]?.stringValue == "pairwise", "\(allowed.text)")
        }
    }
}
