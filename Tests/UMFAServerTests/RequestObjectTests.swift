import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

/// Request objects (RFC 9101) at the authorization and PAR endpoints: a signed `request` whose
/// parameters replace the query's, and every way to forge or replay one refused as
/// `invalid_request_object`; `require_signed_request_object` clients send nothing else.
@Suite("Request objects (RFC 9101)")
struct RequestObjectTests {
    static let scope = "openid email"

    /// A confidential code client with the public key of `key` in its jwks.
    static func client(_ api: API, _ app: TestApplication, key: DPoPKey, required: Bool = false) async throws
        -> TestOAuthClient
    {
        var request = OAuthClientRequest(
            clientName: "Signed requests", redirectURIs: [Authorization.redirectURI],
            grantTypes: ["authorization_code"], responseTypes: ["code"], scope: scope, firstParty: true)
        request.jwks = PrivateKeyJWTTests.jwks(key)
        request.requireSignedRequestObject = required
        return try await api.createOAuthClient(app, request)
    }

    /// The authorization request's parameters as a request object signed with `key`; `claims`
    /// replace or add members (`nil` removes one).
    static func object(
        _ key: DPoPKey, client: TestOAuthClient, app: TestApplication, flow: Authorization,
        header: [String: Any] = ["alg": "ES256", "kid": "k1", "typ": "oauth-authz-req+jwt"],
        claims: [String: Any?] = [:]
    ) -> String {
        var members: [String: Any] = flow.query(client: client.id, scope: scope)
        members["iss"] = client.id
        members["aud"] = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"
        members["exp"] = Int(key.now().timeIntervalSince1970) + 300
        members["jti"] = UUID().uuidString
        members["max_age"] = 600
        for (name, value) in claims { members[name] = value }
        return key.sign(header: header, claims: members)
    }

    /// The authorization endpoint with only `client_id` and `request` (and what `outer` adds).
    static func authorize(
        _ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ request: String, outer: [String: String] = [:]
    ) async throws -> Reply {
        try await api.authorize(app, ["client_id": client.id, "request": request].merging(outer) { $1 })
    }

    @Test("a signed request object's parameters make the request; the query's others are ignored")
    func signed() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            let client = try await Self.client(api, app, key: key)
            let flow = Authorization()
            let page = try await Self.authorize(
                api, app, client, Self.object(key, client: client, app: app, flow: flow),
                outer: ["state": "from-the-query", "scope": "openid phone"])
            #expect(page.status == .ok, "\(page.text.prefix(300))")
            let (interaction, view) = try API.page(page)
            #expect(view == "sign-in" && !interaction.isEmpty)
            // The object's scope, not the query's.
            #expect(page.text.contains(#"<meta name="umfa-scopes" content="openid email">"#))
        }
    }

    @Test("forged, misaddressed, expired, unsigned and replayed request objects are invalid_request_object")
    func refused() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            let client = try await Self.client(api, app, key: key)
            let stranger = DPoPKey(now: { api.clock.now })
            let flow = Authorization()
            let outer = ["redirect_uri": Authorization.redirectURI, "state": "outer"]
            let unsigned =
                Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "."
                + Base64URL.encode(Array(#"{"iss":"\#(client.id)","response_type":"code"}"#.utf8)) + "."
            let cases: [(String, String)] = [
                ("another key", Self.object(stranger, client: client, app: app, flow: flow)),
                ("alg none", unsigned),
                ("HS256", Self.object(key, client: client, app: app, flow: flow, header: ["alg": "HS256"])),
                (
                    "another audience",
                    Self.object(key, client: client, app: app, flow: flow, claims: ["aud": "https://x"])
                ),
                ("another issuer", Self.object(key, client: client, app: app, flow: flow, claims: ["iss": "someone"])),
                ("no exp", Self.object(key, client: client, app: app, flow: flow, claims: ["exp": nil])),
                (
                    "expired",
                    Self.object(
                        key, client: client, app: app, flow: flow,
                        claims: ["exp": Int(api.clock.now.timeIntervalSince1970) - 1])
                ),
                ("no jti", Self.object(key, client: client, app: app, flow: flow, claims: ["jti": nil])),
                (
                    "another client_id inside",
                    Self.object(key, client: client, app: app, flow: flow, claims: ["client_id": "other"])
                ),
                ("not a JWT", "not-a-jwt"),
            ]
            for (name, object) in cases {
                let reply = try await Self.authorize(api, app, client, object, outer: outer)
                let redirect = try reply.redirect()
                #expect(redirect["error"] == "invalid_request_object", "\(name): \(redirect.values)")
                #expect(redirect["state"] == "outer", "\(name)")
            }
            // Without a registered redirect URI in the query, nothing is redirected: the error page.
            let page = try await Self.authorize(api, app, client, unsigned)
            #expect(page.status == .badRequest && page.headers[.location] == nil)

            // Once: the same jti again is refused.
            let once = Self.object(key, client: client, app: app, flow: flow)
            #expect(try await Self.authorize(api, app, client, once).status == .ok)
            let replay = try await Self.authorize(api, app, client, once, outer: outer)
            #expect(try replay.redirect()["error"] == "invalid_request_object")
        }
    }

    @Test("require_signed_request_object: a plain request is refused; a signed one, also pushed (PAR), is taken")
    func required() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            let client = try await Self.client(api, app, key: key, required: true)
            let flow = Authorization()
            let plain = try await api.authorize(app, flow.query(client: client.id, scope: Self.scope))
            let refused = try plain.redirect()
            #expect(refused["error"] == "invalid_request" && refused["state"] == flow.state)
            let secret = try #require(client.secret)
            let pushedPlain = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                flow.query(client: client.id, scope: Self.scope).map { ($0, $1) },
                basic: (client.id, secret))
            expectOAuthError(pushedPlain, .badRequest, "invalid_request")

            let pushed = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                [("request", Self.object(key, client: client, app: app, flow: flow))], basic: (client.id, secret))
            #expect(pushed.status == .created, "\(pushed.text)")
            let requestURI = try #require(pushed["request_uri"]?.stringValue)
            let page = try await api.authorize(app, ["client_id": client.id, "request_uri": requestURI])
            #expect(page.status == .ok, "\(page.text.prefix(200))")
            let metadata = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(metadata["request_parameter_supported"] == true)
            #expect(metadata["request_object_signing_alg_values_supported"] == ["ES256", "RS256", "EdDSA"])
        }
    }

    @Test(
        "a request object never passes for a client assertion, even one with sub; a forged one pushed is invalid_request_object"
    )
    func notAnAssertion() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            var request = OAuthClientRequest(
                clientName: "Both", redirectURIs: [Authorization.redirectURI],
                grantTypes: ["authorization_code", "client_credentials"], responseTypes: ["code"],
                tokenEndpointAuthMethod: "private_key_jwt", scope: "openid api")
            request.jwks = PrivateKeyJWTTests.jwks(key)
            let client = try await api.createOAuthClient(app, request)
            let issuer = "http://127.0.0.1:0/oidc/\(app.id.lowercased())"
            let flow = Authorization()
            // What a page of the flow shows in its URL: signed by the client, aud the issuer, sub added.
            for header in [
                ["alg": "ES256", "kid": "k1"], ["alg": "ES256", "kid": "k1", "typ": "oauth-authz-req+jwt"],
            ] {
                let object = Self.object(
                    key, client: client, app: app, flow: flow, header: header, claims: ["sub": client.id])
                let stolen = try await PrivateKeyJWTTests.token(api, app, assertion: object)
                expectOAuthError(stolen, .unauthorized, "invalid_client")
            }
            // The same key still makes a good assertion.
            let assertion = key.sign(
                header: ["alg": "ES256", "kid": "k1"],
                claims: [
                    "iss": client.id, "sub": client.id, "aud": issuer, "jti": UUID().uuidString,
                    "exp": Int(api.clock.now.timeIntervalSince1970) + 60,
                ])
            #expect(try await PrivateKeyJWTTests.token(api, app, assertion: assertion).status == .ok)

            let pushed = try await api.form(
                .oauthPushedAuthorizationRequest, app,
                [
                    ("client_assertion_type", PrivateKeyJWTTests.assertionType),
                    (
                        "client_assertion",
                        key.sign(
                            header: ["alg": "ES256", "kid": "k1"],
                            claims: [
                                "iss": client.id, "sub": client.id, "aud": issuer, "jti": UUID().uuidString,
                                "exp": Int(api.clock.now.timeIntervalSince1970) + 60,
                            ])
                    ),
                    ("request", Self.object(DPoPKey(), client: client, app: app, flow: flow)),
                ])
            expectOAuthError(pushed, .badRequest, "invalid_request_object")
        }
    }
}
