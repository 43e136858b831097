import Crypto
import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §5 "client authentication": `private_key_jwt` (RFC 7523) with the client's
/// registered `jwks`: audience, expiry window, `jti` once, the key the client registered.
@Suite("OpenID Connect provider: private_key_jwt and client_secret_jwt client authentication (RFC 7523)")
struct PrivateKeyJWTTests {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    static func jwks(_ key: DPoPKey, kid: String = "k1") -> JSONValue {
        var members = key.jwk.mapValues(JSONValue.string)
        members["kid"] = .string(kid)
        return .object(["keys": .array([.object(members)])])
    }

    static func register(_ api: API, _ app: TestApplication, jwks: JSONValue?) async throws -> Reply {
        var request = OAuthClientRequest(
            clientName: "Signed", grantTypes: ["client_credentials"], responseTypes: [],
            tokenEndpointAuthMethod: "private_key_jwt", scope: "api")
        request.jwks = jwks
        return try await api.send(
            .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
            bearer: TestServer.adminToken)
    }

    static func token(_ api: API, _ app: TestApplication, assertion: String, extra: [(String, String)] = [])
        async throws -> Reply
    {
        try await api.form(
            .oauthToken, app,
            [
                ("grant_type", "client_credentials"), ("client_assertion_type", assertionType),
                ("client_assertion", assertion),
            ] + extra)
    }

    @Test("a client with jwks gets tokens with its signed assertion, once per jti; no secret is made")
    func signedAssertion() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            let created = try await Self.register(api, app, jwks: Self.jwks(key))
            #expect(created.status == .created, "\(created.text)")
            #expect(created["client_secret"] == nil && created["jwks"]?["keys"]?.arrayValue?.count == 1)
            let client = try #require(created["client_id"]?.stringValue)
            let tokenURL = DPoPServerTests.tokenURL(app)

            let assertion = key.assertion(client: client, audience: tokenURL)
            let reply = try await Self.token(api, app, assertion: assertion)
            #expect(reply.status == .ok && reply["access_token"] != nil, "\(reply.text)")
            expectOAuthError(try await Self.token(api, app, assertion: assertion), .unauthorized, "invalid_client")
            // The issuer is an audience too, and so is a list holding either.
            let issuer = String(tokenURL.dropLast("/token".count))
            #expect(
                try await Self.token(api, app, assertion: key.assertion(client: client, audience: issuer)).status == .ok
            )
            #expect(
                try await Self.token(
                    api, app,
                    assertion: key.assertion(client: client, audience: issuer, claims: ["aud": ["x", issuer]])
                ).status == .ok)
        }
    }

    @Test("each broken assertion is invalid_client; nothing else about the client is revealed")
    func refusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey(now: { api.clock.now })
            let client = try #require(try await Self.register(api, app, jwks: Self.jwks(key))["client_id"]?.stringValue)
            let url = DPoPServerTests.tokenURL(app)
            let now = Int(api.clock.now.timeIntervalSince1970)
            let cases: [(String, String)] = [
                (key.assertion(client: client, audience: "https://elsewhere.example/token"), "aud"),
                (key.assertion(client: client, audience: url, claims: ["exp": now - 1]), "expired"),
                (key.assertion(client: client, audience: url, claims: ["exp": now + 7200]), "3600 s ahead"),
                (key.assertion(client: client, audience: url, claims: ["exp": nil]), "no exp"),
                (key.assertion(client: client, audience: url, claims: ["jti": nil]), "jti"),
                (key.assertion(client: client, audience: url, claims: ["sub": "someone"]), "iss and sub"),
                (key.assertion(client: client, audience: url, kid: "other"), "no registered key"),
                (DPoPKey(now: { api.clock.now }).assertion(client: client, audience: url), "signature"),
            ]
            for (assertion, reason) in cases {
                let reply = try await Self.token(api, app, assertion: assertion)
                expectOAuthError(reply, .unauthorized, "invalid_client")
                #expect(reply["error_description"]?.stringValue?.contains(reason) == true, "\(reason): \(reply.text)")
            }
            // An HS256 assertion keyed with the public key's bytes (the algorithm-confusion attack).
            let forged = key.sign(
                header: ["alg": "HS256", "kid": "k1"],
                claims: ["iss": client, "sub": client, "aud": url, "exp": now + 60, "jti": "x"])
            expectOAuthError(try await Self.token(api, app, assertion: forged), .unauthorized, "invalid_client")
            expectOAuthError(
                try await Self.token(
                    api, app, assertion: key.assertion(client: client, audience: url), extra: [("client_id", "other")]),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await api.form(
                    .oauthToken, app,
                    [
                        ("grant_type", "client_credentials"), ("client_assertion_type", "urn:example:other"),
                        ("client_assertion", key.assertion(client: client, audience: url)),
                    ]),
                .unauthorized, "invalid_client")
            // A secret client cannot switch to assertions, and has no keys to check them with.
            let secretClient = try await api.machineClient(app)
            expectOAuthError(
                try await Self.token(api, app, assertion: key.assertion(client: secretClient.id, audience: url)),
                .unauthorized, "invalid_client")
        }
    }

    @Test("jwks is required for private_key_jwt and must hold public keys UMFA can verify with")
    func registrationRules() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let key = DPoPKey()
            var withPrivate = key.jwk.mapValues(JSONValue.string)
            withPrivate["d"] = .string(Base64URL.encode(Array(repeating: 7, count: 32)))
            let bad: [(JSONValue?, String)] = [
                (nil, "private_key_jwt needs the client's public keys in jwks"),
                (.object(["keys": .array([])]), "jwks must be {\"keys\": [...]} with 1 to 10 keys"),
                (
                    .object(["keys": .array([.object(withPrivate)])]),
                    "jwks: jwk must be a public key (it has private members)"
                ),
                (
                    .object(["keys": .array([.object(["kty": .string("oct"), "k": .string("c2VjcmV0")])])]),
                    "jwks: jwk must be a public key (it has private members)"
                ),
            ]
            for (jwks, message) in bad {
                expectError(try await Self.register(api, app, jwks: jwks), .badRequest, message: message)
            }
            let list = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(list["clients"]?.arrayValue?.isEmpty == true)
            // No secret to rotate.
            let client = try #require(try await Self.register(api, app, jwks: Self.jwks(key))["client_id"]?.stringValue)
            let rotate = try await api.send(
                .post, APIOperation.rotateOAuthClientSecret.path(["id": app.id, "client_id": client]),
                bearer: TestServer.adminToken)
            #expect(rotate.status == .badRequest, "\(rotate.text)")
        }
    }

    /// A `client_secret_jwt` assertion: HS256 over the claims with the client's secret.
    static func hmacAssertion(secret: String, client: String, audience: String, now: Date, alg: String = "HS256")
        -> String
    {
        let encode = { (object: [String: Any]) in
            Base64URL.encode(
                Array((try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data()))
        }
        let time = Int(now.timeIntervalSince1970)
        let input =
            encode(["alg": alg, "typ": "JWT"]) + "."
            + encode(["iss": client, "sub": client, "aud": audience, "exp": time + 60, "jti": UUID().uuidString])
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return input + "." + Base64URL.encode(Array(mac))
    }

    @Test("client_secret_jwt: an HMAC with the secret authenticates; another secret, a plain secret or alg none do not")
    func clientSecretJWT() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.createOAuthClient(
                app,
                OAuthClientRequest(
                    clientName: "HMAC", grantTypes: ["client_credentials"], responseTypes: [],
                    tokenEndpointAuthMethod: "client_secret_jwt", scope: "api"))
            let secret = try #require(client.secret)
            let url = DPoPServerTests.tokenURL(app)
            let now = api.clock.now
            let good = try await Self.token(
                api, app, assertion: Self.hmacAssertion(secret: secret, client: client.id, audience: url, now: now))
            #expect(good.status == .ok, "\(good.text)")
            for assertion in [
                Self.hmacAssertion(secret: secret + "x", client: client.id, audience: url, now: now),
                Self.hmacAssertion(secret: secret, client: client.id, audience: url, now: now, alg: "none"),
                Self.hmacAssertion(secret: secret, client: client.id, audience: "https://other.example", now: now),
            ] {
                expectOAuthError(try await Self.token(api, app, assertion: assertion), .unauthorized, "invalid_client")
            }
            // The secret itself is never sent: client_secret_post with it is refused.
            expectOAuthError(
                try await api.form(
                    .oauthToken, app,
                    [("grant_type", "client_credentials"), ("client_id", client.id), ("client_secret", secret)]),
                .unauthorized, "invalid_client")
            // Rotation: the new secret signs, the old one no longer does.
            let rotated = try await api.send(
                .post, APIOperation.rotateOAuthClientSecret.path(["id": app.id, "client_id": client.id]),
                bearer: TestServer.adminToken)
            let newSecret = try #require(rotated["client_secret"]?.stringValue)
            #expect(
                try await Self.token(
                    api, app,
                    assertion: Self.hmacAssertion(secret: newSecret, client: client.id, audience: url, now: now)
                ).status == .ok)
            expectOAuthError(
                try await Self.token(
                    api, app, assertion: Self.hmacAssertion(secret: secret, client: client.id, audience: url, now: now)),
                .unauthorized, "invalid_client")
        }
    }
}
