import Crypto
import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §5: the authorization code flow with PKCE on the hosted passkey pages, ID tokens,
/// userinfo, refresh-token rotation with family revocation, the SSO session and consent.
@Suite("OpenID Connect provider: authorization code flow")
struct OIDCAuthorizationCodeTests {
    static let scope = "openid profile email offline_access"

    @Test("sign up on the hosted page, consent, code with state and iss, tokens, a verified ID token, userinfo")
    func signUpToTokens() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app)
            let flow = Authorization()
            let issuer = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"

            let page = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "create"]))
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            let (interaction, view) = try API.page(page)
            #expect(view == "create-account")

            let device = Device.make()
            let created = try await api.createAccount(
                app, interaction: interaction, email: "Alice@Example.com", device: device)
            #expect(created.status == .ok, "\(created.text)")
            #expect(created["next"]?.stringValue == "consent", "a client that is not first-party asks")
            #expect(
                created["scopes"]?.arrayValue?.compactMap(\.stringValue) == [
                    "openid", "profile", "email", "offline_access",
                ])
            let cookie = try #require(created.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Path=/oidc/\(app.id.lowercased())"))

            let allowed = try await api.consent(app, interaction: interaction, allow: true)
            let redirect = try allowed.redirectTo()
            #expect(redirect.base == Authorization.redirectURI)
            #expect(redirect["state"] == flow.state)
            #expect(redirect["iss"] == issuer)
            let code = try #require(redirect["code"])

            let tokens = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
            #expect(tokens.status == .ok, "\(tokens.text)")
            #expect(tokens["token_type"]?.stringValue == "Bearer")
            let accessToken = try #require(tokens["access_token"]?.stringValue)
            #expect(tokens["refresh_token"]?.stringValue?.hasPrefix("umfa_rt_") == true)

            let idToken = try CompactJWT(try #require(tokens["id_token"]?.stringValue))
            let jwks = try await api.send(.get, APIOperation.oidcJWKS.path(["application_id": app.id]))
            let key = try #require(
                jwks["keys"]?.arrayValue?.first { $0["kid"]?.stringValue == idToken.header["kid"]?.stringValue })
            #expect(
                try idToken.verifies(n: try #require(key["n"]?.stringValue), e: try #require(key["e"]?.stringValue)))
            let claims = idToken.claims
            #expect(claims["iss"]?.stringValue == issuer)
            #expect(claims["aud"]?.stringValue == client.id && claims["azp"]?.stringValue == client.id)
            #expect(claims["nonce"]?.stringValue == flow.nonce)
            #expect(claims["at_hash"]?.stringValue == UserTokensProbe.atHash(accessToken))
            #expect(claims["email"]?.stringValue == "Alice@Example.com" && claims["email_verified"]?.boolValue == false)
            #expect(claims["given_name"]?.stringValue == "Alice" && claims["family_name"]?.stringValue == "Example")
            #expect(claims["phone_number"] == nil, "phone was not asked for")
            let sub = try #require(claims["sub"]?.stringValue)
            #expect(UUID(uuidString: sub) != nil, "sign-up accounts get generated ids")
            #expect(claims["amr"]?.arrayValue?.compactMap(\.stringValue).contains("user") == true)
            #expect(claims["auth_time"]?.intValue != nil && claims["sid"]?.stringValue?.isEmpty == false)

            let access = try CompactJWT(accessToken)
            #expect(access.header["typ"]?.stringValue == "at+jwt")
            #expect(access.claims["sub"]?.stringValue == sub && access.claims["client_id"]?.stringValue == client.id)

            let info = try await api.userinfo(app, token: accessToken)
            #expect(info.status == .ok, "\(info.text)")
            #expect(info["sub"]?.stringValue == sub && info["email"]?.stringValue == "Alice@Example.com")
            #expect(info["name"]?.stringValue == "Alice Example")
        }
    }

    @Test("a code works once, for its client, redirect URI and verifier; a replay revokes what it issued")
    func codeRules() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let other = try await api.codeClient(app, firstParty: true)
            let device = Device.make()

            var flow = Authorization()
            var (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "bob@example.com", device: device)
            var code = try #require(redirect["code"])
            expectOAuthError(
                try await api.redeem(app, client: client, code: code, verifier: Authorization().verifier),
                .badRequest, "invalid_grant")
            // The failed attempt spent the code.
            expectOAuthError(
                try await api.redeem(app, client: client, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")

            flow = Authorization()
            (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "carol@example.com", device: Device.make())
            code = try #require(redirect["code"])
            expectOAuthError(
                try await api.redeem(app, client: other, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")

            flow = Authorization()
            (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "dan@example.com", device: Device.make())
            code = try #require(redirect["code"])
            expectOAuthError(
                try await api.redeem(
                    app, client: client, code: code, verifier: flow.verifier, redirectURI: "https://rp.example/other"),
                .badRequest, "invalid_grant")

            flow = Authorization()
            (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "erin@example.com", device: Device.make())
            code = try #require(redirect["code"])
            let first = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
            #expect(first.status == .ok, "\(first.text)")
            let access = try #require(first["access_token"]?.stringValue)
            let refresh = try #require(first["refresh_token"]?.stringValue)
            #expect(try await api.userinfo(app, token: access).status == .ok)
            expectOAuthError(
                try await api.redeem(app, client: client, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")
            #expect(try await api.userinfo(app, token: access).status == .unauthorized, "the replay revoked it")
            expectOAuthError(try await api.refresh(app, client: client, token: refresh), .badRequest, "invalid_grant")

            flow = Authorization()
            (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "fay@example.com", device: Device.make())
            code = try #require(redirect["code"])
            api.clock.advance(by: 61)
            expectOAuthError(
                try await api.redeem(app, client: client, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")
        }
    }

    @Test("refresh tokens rotate; a spent one presented again revokes the whole family")
    func refreshRotation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "gus@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            let first = try #require(tokens["refresh_token"]?.stringValue)

            let rotated = try await api.refresh(app, client: client, token: first)
            #expect(rotated.status == .ok, "\(rotated.text)")
            let second = try #require(rotated["refresh_token"]?.stringValue)
            #expect(second != first)
            #expect(rotated["id_token"]?.stringValue != nil, "openid was granted")
            let access = try #require(rotated["access_token"]?.stringValue)
            #expect(try await api.userinfo(app, token: access).status == .ok)

            expectOAuthError(try await api.refresh(app, client: client, token: first), .badRequest, "invalid_grant")
            expectOAuthError(try await api.refresh(app, client: client, token: second), .badRequest, "invalid_grant")
            #expect(
                try await api.userinfo(app, token: access).status == .unauthorized, "the family's access tokens end")
        }
    }

    @Test("revoking a refresh token ends its family; introspection shows it until then")
    func refreshRevocation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "hal@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            let access = try #require(tokens["access_token"]?.stringValue)
            let basic = (client.id, try #require(client.secret))

            let seen = try await api.form(.oauthIntrospect, app, [("token", refresh)], basic: basic)
            #expect(seen["active"]?.boolValue == true && seen["token_type"]?.stringValue == "refresh_token")
            #expect(try await api.form(.oauthRevoke, app, [("token", refresh)], basic: basic).status == .ok)
            let gone = try await api.form(.oauthIntrospect, app, [("token", refresh)], basic: basic)
            #expect(gone["active"]?.boolValue == false)
            #expect(try await api.userinfo(app, token: access).status == .unauthorized)
            expectOAuthError(try await api.refresh(app, client: client, token: refresh), .badRequest, "invalid_grant")
        }
    }

    @Test("another application's code, refresh token, access token and client are refused")
    func otherApplications() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let otherClient = try await api.codeClient(other, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "quinn@example.com", device: Device.make())
            let code = try #require(redirect["code"])
            // The other issuer knows neither the code nor this client.
            expectOAuthError(
                try await api.redeem(other, client: otherClient, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")
            expectOAuthError(
                try await api.redeem(other, client: client, code: code, verifier: flow.verifier), .unauthorized,
                "invalid_client")
            let tokens = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
            let access = try #require(tokens["access_token"]?.stringValue)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            #expect(try await api.userinfo(other, token: access).status == .unauthorized)
            expectOAuthError(
                try await api.refresh(other, client: otherClient, token: refresh), .badRequest, "invalid_grant")
            let page = try await api.authorize(other, Authorization().query(client: client.id, scope: "openid"))
            #expect(page.status == .badRequest && page.headers[.location] == nil)
            // Nothing the other issuer refused touched this one's tokens.
            #expect(try await api.userinfo(app, token: access).status == .ok)
            #expect(try await api.refresh(app, client: client, token: refresh).status == .ok)
        }
    }
}

/// `at_hash` computed here, independently of the server's code.
enum UserTokensProbe {
    static func atHash(_ token: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(token.utf8))).prefix(16))
    }
}
