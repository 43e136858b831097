import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §5 "DPoP": tokens bound to a client's key at the token endpoint, used with proofs
/// at userinfo, replay refused, server nonces, `dpop_jkt`, bound refresh tokens of public clients.
@Suite("OpenID Connect provider: DPoP (RFC 9449)")
struct DPoPServerTests {
    static let issuerBase = "http://127.0.0.1:0/oidc/"

    static func tokenURL(_ app: TestApplication) -> String { issuerBase + app.id.lowercased() + "/token" }
    static func userinfoURL(_ app: TestApplication) -> String { issuerBase + app.id.lowercased() + "/userinfo" }

    @Test("client_credentials with a proof: a DPoP token with cnf.jkt; introspection says so; a replay is refused")
    func boundMachineToken() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let auth = (client.id, try #require(client.secret))
            let key = DPoPKey(now: { api.clock.now })
            let proof = key.proof("POST", Self.tokenURL(app))
            let reply = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth, dpop: proof)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply["token_type"]?.stringValue == "DPoP")
            let token = try #require(reply["access_token"]?.stringValue)
            #expect(try CompactJWT(token).claims["cnf"]?["jkt"]?.stringValue == key.thumbprint)

            let introspected = try await api.form(.oauthIntrospect, app, [("token", token)], basic: auth)
            #expect(introspected["token_type"]?.stringValue == "DPoP")
            #expect(introspected["cnf"]?["jkt"]?.stringValue == key.thumbprint)
            // A proof sent to introspection is checked: one for its URL passes, one for the token
            // endpoint (or the same one again) is refused.
            let introspectURL = String(Self.tokenURL(app).dropLast("/token".count)) + "/introspect"
            let proven = key.proof("POST", introspectURL)
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", token)], basic: auth, dpop: proven)["active"]?
                    .boolValue == true)
            for bad in [proven, key.proof("POST", Self.tokenURL(app))] {
                expectOAuthError(
                    try await api.form(.oauthIntrospect, app, [("token", token)], basic: auth, dpop: bad), .badRequest,
                    "invalid_dpop_proof")
            }

            let replayed = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth, dpop: proof)
            expectOAuthError(replayed, .badRequest, "invalid_dpop_proof")
            #expect(replayed["error_description"]?.stringValue?.contains("used before") == true)
            // Other proofs for the token endpoint, each wrong in one way.
            for bad in [
                key.proof("GET", Self.tokenURL(app)), key.proof("POST", Self.userinfoURL(app)),
                key.proof("POST", Self.tokenURL(app), iat: api.clock.now.addingTimeInterval(-300)),
                key.proof("POST", Self.tokenURL(app), header: ["alg": "HS256"]),
            ] {
                expectOAuthError(
                    try await api.form(
                        .oauthToken, app, [("grant_type", "client_credentials")], basic: auth, dpop: bad),
                    .badRequest, "invalid_dpop_proof")
            }
        }
    }

    @Test("a dpop_bound_access_tokens client without a proof is refused")
    func boundClientNeedsProof() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest(
                clientName: "Bound", grantTypes: ["client_credentials"], responseTypes: [], scope: "api")
            request.dpopBoundAccessTokens = true
            let client = try await api.createOAuthClient(app, request)
            let auth = (client.id, try #require(client.secret))
            expectOAuthError(
                try await api.form(.oauthToken, app, [("grant_type", "client_credentials")], basic: auth), .badRequest,
                "invalid_dpop_proof")
            let bound = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth,
                dpop: DPoPKey(now: { api.clock.now }).proof("POST", Self.tokenURL(app)))
            #expect(bound.status == .ok && bound["token_type"]?.stringValue == "DPoP", "\(bound.text)")
        }
    }

    @Test("dpop_nonce required: the first proof gets use_dpop_nonce and a nonce, the retry with it works")
    func nonceDance() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let patched = try await TokenSigningAlgorithmTests.patch(
                api, app, ApplicationSettingsRequest(ApplicationSettings(dpopNonce: "required")))
            #expect(patched.status == .ok && patched["dpop_nonce"]?.stringValue == "required", "\(patched.text)")
            let client = try await api.machineClient(app)
            let auth = (client.id, try #require(client.secret))
            let key = DPoPKey(now: { api.clock.now })
            let first = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth,
                dpop: key.proof("POST", Self.tokenURL(app)))
            expectOAuthError(first, .badRequest, "use_dpop_nonce")
            let nonce = try #require(first.headers[DPoPKey.nonceHeader])
            let wrong = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth,
                dpop: key.proof("POST", Self.tokenURL(app), nonce: nonce + "x"))
            expectOAuthError(wrong, .badRequest, "use_dpop_nonce")
            let retry = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth,
                dpop: key.proof("POST", Self.tokenURL(app), nonce: nonce))
            #expect(retry.status == .ok, "\(retry.text)")
            // A nonce of another application is not this one's.
            let other = try await api.createApplication(policy: "grant")
            #expect(
                try await TokenSigningAlgorithmTests.patch(
                    api, other, ApplicationSettingsRequest(ApplicationSettings(dpopNonce: "required"))
                )
                .status == .ok)
            let otherClient = try await api.machineClient(other)
            let foreign = try await api.form(
                .oauthToken, other, [("grant_type", "client_credentials")],
                basic: (otherClient.id, try #require(otherClient.secret)),
                dpop: key.proof("POST", Self.tokenURL(other), nonce: nonce))
            expectOAuthError(foreign, .badRequest, "use_dpop_nonce")
            // Two periods later the nonce is stale.
            api.clock.advance(by: 700)
            let stale = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: auth,
                dpop: key.proof("POST", Self.tokenURL(app), nonce: nonce, iat: api.clock.now))
            expectOAuthError(stale, .badRequest, "use_dpop_nonce")
        }
    }

    @Test("a public client's tokens: userinfo needs DPoP and a proof of the key; the refresh token is bound")
    func publicClientFlow() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, method: "none")
            let key = DPoPKey(now: { api.clock.now })
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "dee@example.com", device: Device.make(),
                extra: ["dpop_jkt": key.thumbprint])
            let code = try #require(redirect["code"])
            let parameters = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Authorization.redirectURI),
                ("code_verifier", flow.verifier), ("client_id", client.id),
            ]
            // dpop_jkt bound the code: another key's proof is refused (and spends the code).
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, parameters,
                    dpop: DPoPKey(now: { api.clock.now }).proof("POST", Self.tokenURL(app))), .badRequest,
                "invalid_dpop_proof")

            let flow2 = Authorization()
            let (redirect2, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: flow2, email: "eve@example.com", device: Device.make())
            _ = cookie
            let tokens = try await api.form(
                .oauthToken, app,
                [
                    ("grant_type", "authorization_code"), ("code", try #require(redirect2["code"])),
                    ("redirect_uri", Authorization.redirectURI), ("code_verifier", flow2.verifier),
                    ("client_id", client.id),
                ], dpop: key.proof("POST", Self.tokenURL(app)))
            #expect(tokens.status == .ok && tokens["token_type"]?.stringValue == "DPoP", "\(tokens.text)")
            let access = try #require(tokens["access_token"]?.stringValue)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)

            // As a Bearer token: refused, with a DPoP challenge.
            let asBearer = try await api.userinfo(app, token: access)
            #expect(asBearer.status == .unauthorized)
            #expect(asBearer.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)
            // With DPoP and a proof of the key: the claims.
            let path = APIOperation.oauthUserinfo.path(["application_id": app.id])
            let good = try await api.dpopGet(
                path, token: access, proof: key.proof("GET", Self.userinfoURL(app), accessToken: access))
            #expect(good.status == .ok && good["email"]?.stringValue == "eve@example.com", "\(good.text)")
            for (proof, problem) in [
                (
                    DPoPKey(now: { api.clock.now }).proof("GET", Self.userinfoURL(app), accessToken: access),
                    "another key"
                ),
                (key.proof("GET", Self.userinfoURL(app)), "no ath"),
                (key.proof("POST", Self.userinfoURL(app), accessToken: access), "another method"),
            ] {
                let refused = try await api.dpopGet(path, token: access, proof: proof)
                #expect(refused.status == .unauthorized, "\(problem): \(refused.text)")
                #expect(
                    refused.headers[.wwwAuthenticate]?.contains(#"error="invalid_dpop_proof""#) == true, "\(problem)")
            }

            // The refresh token works only with a proof of the same key.
            let refreshParameters = [
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client.id),
            ]
            expectOAuthError(try await api.form(.oauthToken, app, refreshParameters), .badRequest, "invalid_dpop_proof")
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, refreshParameters,
                    dpop: DPoPKey(now: { api.clock.now }).proof("POST", Self.tokenURL(app))),
                .badRequest, "invalid_dpop_proof")
            // The refusals did not spend it: with the key's proof it rotates, and stays bound.
            let rotated = try await api.form(
                .oauthToken, app, refreshParameters, dpop: key.proof("POST", Self.tokenURL(app)))
            #expect(rotated.status == .ok && rotated["token_type"]?.stringValue == "DPoP", "\(rotated.text)")
            let next = try #require(rotated["refresh_token"]?.stringValue)
            expectOAuthError(
                try await api.form(
                    .oauthToken, app,
                    [("grant_type", "refresh_token"), ("refresh_token", next), ("client_id", client.id)]),
                .badRequest, "invalid_dpop_proof")
        }
    }
}

extension DPoPKey {
    static let nonceHeader = HTTPField.Name("DPoP-Nonce") ?? .contentType
}

extension API {
    /// A GET with `Authorization: DPoP <token>` and a proof.
    func dpopGet(_ path: String, token: String, proof: String) async throws -> Reply {
        let response = try await client.execute(
            uri: path, method: .get, headers: [.authorization: "DPoP \(token)", DPoPKey.header: proof], body: nil)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }
}
