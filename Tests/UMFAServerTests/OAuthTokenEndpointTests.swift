import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// docs/contract.md §5 "token endpoint", "tokens", "revocation, introspection": the machine grant
/// (`client_credentials`), access tokens per RFC 9068, RFC 7662 and RFC 7009.
@Suite("OpenID Connect provider: token endpoint, introspection, revocation")
struct OAuthTokenEndpointTests {
    static let grant: [(String, String)] = [("grant_type", "client_credentials")]

    @Test("client_credentials with Basic or post credentials gives an RFC 9068 access token signed by the JWKS")
    func clientCredentials() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let basic = try await api.machineClient(app)
            let reply = try await api.form(
                .oauthToken, app, Self.grant + [("scope", "orders:read")], basic: (basic.id, try #require(basic.secret))
            )
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply["token_type"]?.stringValue == "Bearer")
            #expect(reply["scope"]?.stringValue == "orders:read")
            #expect(reply["expires_in"]?.intValue == 600)
            #expect(reply["refresh_token"] == nil && reply["id_token"] == nil)
            #expect(reply.headers[.cacheControl] == "no-store")

            let token = try #require(reply["access_token"]?.stringValue)
            let jwt = try CompactJWT(token)
            #expect(jwt.header["typ"]?.stringValue == "at+jwt" && jwt.header["alg"]?.stringValue == "RS256")
            let issuer = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"
            #expect(jwt.claims["iss"]?.stringValue == issuer)
            #expect(jwt.claims["sub"]?.stringValue == basic.id && jwt.claims["client_id"]?.stringValue == basic.id)
            #expect(jwt.claims["aud"]?.stringValue == issuer)
            #expect(jwt.claims["scope"]?.stringValue == "orders:read")
            let iat = try #require(jwt.claims["iat"]?.intValue)
            #expect(jwt.claims["exp"]?.intValue == iat + 600)
            #expect(jwt.claims["jti"]?.stringValue?.isEmpty == false)
            let jwks = try await api.send(.get, APIOperation.oidcJWKS.path(["application_id": app.id]))
            let key = try #require(
                jwks["keys"]?.arrayValue?.first { $0["kid"]?.stringValue == jwt.header["kid"]?.stringValue })
            #expect(
                try jwt.verifies(n: try #require(key["n"]?.stringValue), e: try #require(key["e"]?.stringValue)))

            let post = try await api.machineClient(app, method: "client_secret_post")
            let posted = try await api.form(
                .oauthToken, app,
                Self.grant + [("client_id", post.id), ("client_secret", try #require(post.secret))])
            #expect(posted.status == .ok, "\(posted.text)")
            #expect(posted["scope"]?.stringValue == "orders:read orders:write", "no scope asked: all it was given")
        }
    }

    @Test("bad requests are RFC 6749 §5.2 errors: invalid_client, invalid_scope, unsupported_grant_type, …")
    func refusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let secret = try #require(client.secret)
            let auth = (client.id, secret)

            let wrongSecret = try await api.form(.oauthToken, app, Self.grant, basic: (client.id, secret + "x"))
            expectOAuthError(wrongSecret, .unauthorized, "invalid_client")
            #expect(wrongSecret.headers[.wwwAuthenticate] == #"Basic realm="umfa""#)
            expectOAuthError(
                try await api.form(.oauthToken, app, Self.grant, basic: ("umfa_ci_unknown", secret)), .unauthorized,
                "invalid_client")
            expectOAuthError(
                try await api.form(.oauthToken, other, Self.grant, basic: auth), .unauthorized, "invalid_client")
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, Self.grant + [("client_id", client.id), ("client_secret", secret)]),
                .unauthorized, "invalid_client")
            expectOAuthError(try await api.form(.oauthToken, app, Self.grant), .unauthorized, "invalid_client")
            expectOAuthError(
                try await api.form(.oauthToken, app, Self.grant + [("scope", "admin")], basic: auth), .badRequest,
                "invalid_scope")
            expectOAuthError(
                try await api.form(.oauthToken, app, [("grant_type", "password")], basic: auth), .badRequest,
                "unsupported_grant_type")
            expectOAuthError(
                try await api.form(.oauthToken, app, [("scope", "orders:read")], basic: auth), .badRequest,
                "invalid_request")
            expectOAuthError(
                try await api.form(.oauthToken, app, Self.grant + [("grant_type", "client_credentials")], basic: auth),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await api.form(.oauthToken, app, Self.grant, basic: auth, contentType: "application/json"),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, Self.grant + [("client_secret", secret)], basic: auth), .badRequest,
                "invalid_request")
            let unknownIssuer = try await api.client.execute(
                uri: APIOperation.oauthToken.path(["application_id": "not-a-uuid"]), method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: .init(string: "grant_type=client_credentials"))
            #expect(unknownIssuer.status == .notFound)
        }
    }

    @Test("introspection shows a live token to the issuer's clients; revocation ends it; other tokens are inactive")
    func introspectAndRevoke() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let auth = (client.id, try #require(client.secret))
            let resourceServer = try await api.machineClient(app, scope: "introspect")
            let rsAuth = (resourceServer.id, try #require(resourceServer.secret))
            // A resource server sees other clients' tokens only when the application lists it
            // (docs/contract.md §5; IntrospectionAccessTests).
            let listed = try await IntrospectionAccessTests.allowIntrospection(api, app, [resourceServer.id])
            #expect(listed.status == .ok, "\(listed.text)")
            let token = try #require(
                try await api.form(.oauthToken, app, Self.grant, basic: auth)["access_token"]?.stringValue)

            let live = try await api.form(.oauthIntrospect, app, [("token", token)], basic: rsAuth)
            #expect(live.status == .ok)
            #expect(live["active"]?.boolValue == true && live["client_id"]?.stringValue == client.id)
            #expect(
                live["scope"]?.stringValue == "orders:read orders:write" && live["token_type"]?.stringValue == "Bearer")

            // Another issuer does not know the token, nor do forgeries and login-token lookalikes.
            let otherClient = try await api.machineClient(other)
            let elsewhere = try await api.form(
                .oauthIntrospect, other, [("token", token)], basic: (otherClient.id, try #require(otherClient.secret)))
            #expect(elsewhere.json == .object(["active": .bool(false)]))
            var forged = token
            forged.removeLast()
            forged += token.hasSuffix("A") ? "B" : "A"
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", forged)], basic: rsAuth).json
                    == .object(["active": .bool(false)]))
            // A login token of the same issuer's application is not an access token.
            let login = try await api.register(
                app, user: "alice", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", login.token)], basic: rsAuth).json
                    == .object(["active": .bool(false)]))
            expectOAuthError(
                try await api.form(.oauthIntrospect, app, [("token", token)]), .unauthorized, "invalid_client")
            let publicClient = try await api.createOAuthClient(
                app,
                OAuthClientRequest(
                    clientName: "App", redirectURIs: ["com.example.app:/cb"], tokenEndpointAuthMethod: "none"))
            #expect(publicClient.secret == nil)
            expectOAuthError(
                try await api.form(.oauthIntrospect, app, [("token", token), ("client_id", publicClient.id)]),
                .unauthorized, "invalid_client")

            // Only the client the token was issued to revokes it; then it is inactive everywhere.
            #expect(try await api.form(.oauthRevoke, app, [("token", token)], basic: rsAuth).status == .ok)
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", token)], basic: rsAuth)["active"]?.boolValue
                    == true)
            let revoked = try await api.form(
                .oauthRevoke, app, [("token", token), ("token_type_hint", "access_token")], basic: auth)
            #expect(revoked.status == .ok && revoked.text.isEmpty)
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", token)], basic: rsAuth).json
                    == .object(["active": .bool(false)]))
            expectOAuthError(
                try await api.form(
                    .oauthRevoke, app, [("token", token), ("token_type_hint", "id_token")], basic: auth),
                .badRequest, "unsupported_token_type")

            // An expired token is inactive.
            let fresh = try #require(
                try await api.form(.oauthToken, app, Self.grant, basic: auth)["access_token"]?.stringValue)
            api.clock.advance(by: 601)
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", fresh)], basic: rsAuth).json
                    == .object(["active": .bool(false)]))
        }
    }

    @Test("both metadata documents describe the issuer, listing only what it serves")
    func metadata() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let discovery = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            let rfc8414 = try await api.send(.get, APIOperation.oauthServerMetadata.path(["application_id": app.id]))
            #expect(discovery.status == .ok && discovery.json == rfc8414.json)
            let issuer = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"
            #expect(discovery["issuer"]?.stringValue == issuer)
            #expect(discovery["token_endpoint"]?.stringValue == issuer + "/token")
            #expect(discovery["jwks_uri"]?.stringValue == issuer + "/jwks")
            #expect(
                discovery["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue)
                    == [
                        "authorization_code", "refresh_token", "client_credentials",
                        "urn:ietf:params:oauth:grant-type:device_code", "urn:openid:params:grant-type:ciba",
                    ])
            #expect(discovery["device_authorization_endpoint"]?.stringValue == issuer + "/device_authorization")
            #expect(discovery["authorization_endpoint"]?.stringValue == issuer + "/authorize")
            #expect(discovery["pushed_authorization_request_endpoint"]?.stringValue == issuer + "/par")
            #expect(discovery["registration_endpoint"]?.stringValue == issuer + "/register")
            #expect(
                discovery["dpop_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue)
                    == ["ES256", "RS256", "EdDSA"])
            let unknown = try await api.send(
                .get, APIOperation.oidcDiscovery.path(["application_id": UUID().uuidString]))
            expectError(unknown, .notFound)
        }
    }
}
