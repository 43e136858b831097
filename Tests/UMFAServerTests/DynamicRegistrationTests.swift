import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §5 "dynamic registration": RFC 7591 with an admin-issued initial access token or a
/// `dcr_template` client's `dcr` token, RFC 7592 read / update / delete with the registration
/// access token.
@Suite("OpenID Connect provider: dynamic client registration (RFC 7591, RFC 7592)")
struct DynamicRegistrationTests {
    static let native: JSONValue = [
        "client_name": "Shop for iOS", "redirect_uris": ["com.example.shop:/callback"],
        "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none",
        "scope": "openid email", "logo_uri": "https://shop.example/logo.png",
    ]

    static func registrationURL(_ app: TestApplication) -> String {
        DPoPServerTests.issuerBase + app.id.lowercased() + "/register"
    }

    @Test("an initial access token registers as many clients as its uses; secrets and tokens are shown once")
    func initialAccessToken() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app, uses: 2, scope: "openid email reports")
            #expect(token.hasPrefix("umfa_iat_"))

            let native = try await api.registration(.post, app, json: Self.native, authorization: "Bearer " + token)
            #expect(native.status == .created, "\(native.text)")
            #expect(native["client_secret"] == nil && native["token_endpoint_auth_method"]?.stringValue == "none")
            #expect(native["redirect_uris"] == ["com.example.shop:/callback"])
            #expect(native["grant_types"] == ["authorization_code", "refresh_token"])
            #expect(native["response_types"] == ["code"])
            #expect(native["registration_access_token"]?.stringValue?.hasPrefix("umfa_rat_") == true)
            let id = try #require(native["client_id"]?.stringValue)
            #expect(native["registration_client_uri"]?.stringValue == Self.registrationURL(app) + "/" + id)
            #expect(native["client_id_issued_at"]?.intValue == Int(api.clock.now.timeIntervalSince1970))

            let machine = try await api.registration(
                .post, app,
                json: ["grant_types": ["client_credentials"], "scope": "reports", "client_name": "Reports"],
                authorization: "Bearer " + token)
            #expect(machine.status == .created, "\(machine.text)")
            #expect(machine["token_endpoint_auth_method"]?.stringValue == "client_secret_basic")
            #expect(machine["client_secret_expires_at"]?.intValue == 0)
            let secret = try #require(machine["client_secret"]?.stringValue)
            let machineID = try #require(machine["client_id"]?.stringValue)
            let granted = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")], basic: (machineID, secret))
            #expect(granted.status == .ok && granted["scope"]?.stringValue == "reports", "\(granted.text)")

            // Used up: the third registration is refused, and nothing is added.
            let third = try await api.registration(.post, app, json: Self.native, authorization: "Bearer " + token)
            expectOAuthError(third, .unauthorized, "invalid_token")
            #expect(third.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let listed = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(listed["clients"]?.arrayValue?.count == 2)
            #expect(listed["clients"]?.arrayValue?.allSatisfy { $0["first_party"]?.boolValue == false } == true)
        }
    }

    @Test("a registration refused for its metadata spends no use of the token and stores nothing")
    func badMetadata() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let machine = try await api.machineClient(app)
            let token = try await api.initialAccessToken(app, uses: 1)
            let bearer = "Bearer " + token
            let cases: [(JSONValue, String)] = [
                (["redirect_uris": ["http://shop.example/callback"]], "invalid_redirect_uri"),
                (["redirect_uris": ["shop:/callback"]], "invalid_redirect_uri"),
                (
                    ["redirect_uris": ["https://a.example/"], "jwks_uri": "https://a.example/jwks"],
                    "invalid_client_metadata"
                ),
                (
                    ["redirect_uris": ["https://a.example/"], "software_statement": "eyJ.x.y"],
                    "invalid_software_statement"
                ),
                (
                    ["redirect_uris": ["https://a.example/"], "software_id": .string(machine.id)],
                    "invalid_client_metadata"
                ),
                (["redirect_uris": ["https://a.example/"], "grant_types": ["password"]], "invalid_client_metadata"),
                (["grant_types": ["authorization_code"]], "invalid_client_metadata"),
                (
                    ["grant_types": ["client_credentials"], "token_endpoint_auth_method": "none"],
                    "invalid_client_metadata"
                ),
                (
                    ["token_endpoint_auth_method": "private_key_jwt", "grant_types": ["client_credentials"]],
                    "invalid_client_metadata"
                ),
                (["redirect_uris": "https://a.example/"], "invalid_client_metadata"),
            ]
            for (body, code) in cases {
                expectOAuthError(
                    try await api.registration(.post, app, json: body, authorization: bearer), .badRequest, code)
            }
            for authorization in [nil, "Bearer umfa_iat_wrong", "Bearer not-a-jwt", "Basic eDp5"] {
                let reply = try await api.registration(.post, app, json: Self.native, authorization: authorization)
                #expect(reply.status == .unauthorized, "\(reply.text)")
                #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            // Another application's issuer does not take the token.
            let other = try await api.createApplication(policy: "grant")
            expectOAuthError(
                try await api.registration(.post, other, json: Self.native, authorization: bearer), .unauthorized,
                "invalid_token")
            let listed = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(listed["clients"]?.arrayValue?.count == 1)
            // The one use is still there, until the token expires.
            #expect(
                try await api.registration(.post, app, json: Self.native, authorization: bearer).status == .created)
            let late = try await api.initialAccessToken(app, ttl: 60)
            api.clock.advance(by: 61)
            expectOAuthError(
                try await api.registration(.post, app, json: Self.native, authorization: "Bearer " + late),
                .unauthorized, "invalid_token")
        }
    }

    @Test("initial access token limits: ttl_seconds 60-2592000, uses 1-1000, admin token required")
    func initialAccessTokenRules() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let path = APIOperation.createInitialAccessToken.path(["id": app.id])
            for body: JSONValue in [["ttl_seconds": 59], ["ttl_seconds": 2_592_001], ["uses": 0], ["uses": 1001]] {
                let reply = try await api.send(.post, path, json: body, bearer: TestServer.adminToken)
                #expect(reply.status == .badRequest, "\(body): \(reply.text)")
            }
            #expect(try await api.send(.post, path, json: [:], bearer: app.apiKey).status == .unauthorized)
            let made = try await api.send(.post, path, json: [:], bearer: TestServer.adminToken)
            #expect(made["uses"]?.intValue == 1)
            let expires = try #require(made["expires_at"]?.stringValue)
            #expect(expires.hasPrefix(String(Timestamps.rfc3339(api.clock.now.addingTimeInterval(86_400)).prefix(16))))
        }
    }

    @Test("a dcr_template client's dcr token registers clients that copy the template, DPoP-proven when bound")
    func template() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest(
                clientName: "Shop app template", redirectURIs: ["com.example.shop:/callback"],
                grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
                tokenEndpointAuthMethod: "client_secret_post", scope: "openid email", firstParty: true,
                accessTokenTTLSeconds: 300)
            request.dcrTemplate = true
            request.dpopBoundAccessTokens = true
            let template = try await api.createOAuthClient(app, request)
            let secret = try #require(template.secret)
            let key = DPoPKey(now: { api.clock.now })
            let credentials = [("client_id", template.id), ("client_secret", secret)]

            // The template may not use client_credentials for anything but dcr.
            expectOAuthError(
                try await api.form(
                    .oauthToken, app, [("grant_type", "client_credentials")] + credentials,
                    dpop: key.proof("POST", DPoPServerTests.tokenURL(app))),
                .badRequest, "unauthorized_client")
            let granted = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("scope", "dcr")] + credentials,
                dpop: key.proof("POST", DPoPServerTests.tokenURL(app)))
            #expect(granted.status == .ok && granted["scope"]?.stringValue == "dcr", "\(granted.text)")
            let dcr = try #require(granted["access_token"]?.stringValue)
            let url = Self.registrationURL(app)

            // Bound: a Bearer presentation or a missing proof is refused with a DPoP challenge.
            let asBearer = try await api.registration(.post, app, json: [:], authorization: "Bearer " + dcr)
            #expect(asBearer.status == .unauthorized && asBearer.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)
            let noProof = try await api.registration(.post, app, json: [:], authorization: "DPoP " + dcr)
            #expect(noProof.status == .unauthorized && noProof["error"]?.stringValue == "invalid_dpop_proof")

            // Settings looser than the template's are refused (docs/contract.md §5), each of them.
            let looser: [JSONValue] = [
                ["grant_types": ["client_credentials"]], ["scope": "admin"], ["token_endpoint_auth_method": "none"],
                ["dpop_bound_access_tokens": false],
            ]
            for change in looser {
                let refused = try await api.registration(
                    .post, app,
                    json: change.merging(["client_name": "Pia's phone", "software_id": .string(template.id)]),
                    authorization: "DPoP " + dcr, dpop: key.proof("POST", url, accessToken: dcr))
                expectOAuthError(refused, .badRequest, "invalid_client_metadata")
            }
            let asked: JSONValue = ["client_name": "Pia's phone", "software_id": .string(template.id)]
            let made = try await api.registration(
                .post, app, json: asked, authorization: "DPoP " + dcr,
                dpop: key.proof("POST", url, accessToken: dcr))
            #expect(made.status == .created, "\(made.text)")
            // The template's settings; the request's name; a secret of its own.
            #expect(made["client_name"]?.stringValue == "Pia's phone")
            #expect(made["grant_types"] == ["authorization_code", "refresh_token"])
            #expect(made["scope"]?.stringValue == "openid email")
            #expect(made["token_endpoint_auth_method"]?.stringValue == "client_secret_post")
            #expect(made["redirect_uris"] == ["com.example.shop:/callback"])
            #expect(made["dpop_bound_access_tokens"]?.boolValue == true)
            #expect(made["software_id"]?.stringValue == template.id)
            let newSecret = try #require(made["client_secret"]?.stringValue)
            #expect(newSecret != secret)
            let newID = try #require(made["client_id"]?.stringValue)
            let shown = try await api.send(
                .get, APIOperation.getOAuthClient.path(["id": app.id, "client_id": newID]),
                bearer: TestServer.adminToken)
            #expect(shown["first_party"]?.boolValue == true && shown["access_token_ttl_seconds"]?.intValue == 300)
            #expect(shown["dcr_template"]?.boolValue == false && shown["software_id"]?.stringValue == template.id)

            // software_id naming another client, with the template's token: refused.
            let other = try await api.registration(
                .post, app, json: ["software_id": .string(newID)], authorization: "DPoP " + dcr,
                dpop: key.proof("POST", url, accessToken: dcr))
            expectOAuthError(other, .badRequest, "invalid_client_metadata")

            // Another client's access token is no registration token; scope dcr is for templates.
            let machine = try await api.machineClient(app, scope: "orders:read dcr")
            let machineSecret = try #require(machine.secret)
            let machineReply = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("scope", "dcr")],
                basic: (machine.id, machineSecret))
            let machineToken = try #require(machineReply["access_token"]?.stringValue)
            expectOAuthError(
                try await api.registration(.post, app, json: [:], authorization: "Bearer " + machineToken),
                .unauthorized, "invalid_token")

            // A template turned into an ordinary client: its dcr tokens stop working.
            var plain = OAuthClientRequest()
            plain.dcrTemplate = false
            let patched = try await api.send(
                .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": template.id]),
                json: try .encoding(plain), bearer: TestServer.adminToken)
            #expect(patched.status == .ok)
            expectOAuthError(
                try await api.registration(
                    .post, app, json: [:], authorization: "DPoP " + dcr,
                    dpop: key.proof("POST", url, accessToken: dcr)),
                .unauthorized, "invalid_token")
        }
    }

    @Test("an admin token's software_id names a template to copy; a public template is refused")
    func templateByInitialAccessToken() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest(
                clientName: "Public template", redirectURIs: ["com.example.shop:/callback"],
                tokenEndpointAuthMethod: "none")
            request.dcrTemplate = true
            let refused = try await api.send(
                .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
                bearer: TestServer.adminToken)
            #expect(refused.status == .badRequest && refused.text.contains("dcr_template"), "\(refused.text)")
            request.tokenEndpointAuthMethod = "client_secret_basic"
            let template = try await api.createOAuthClient(app, request)
            let token = try await api.initialAccessToken(app)
            expectOAuthError(
                try await api.registration(
                    .post, app, json: ["software_id": .string(template.id), "token_endpoint_auth_method": "none"],
                    authorization: "Bearer " + token), .badRequest, "invalid_client_metadata")
            let made = try await api.registration(
                .post, app, json: ["software_id": .string(template.id)], authorization: "Bearer " + token)
            #expect(made.status == .created, "\(made.text)")
            #expect(made["token_endpoint_auth_method"]?.stringValue == "client_secret_basic")
            #expect(made["client_name"]?.stringValue == "Public template (registered)")
        }
    }

    @Test("a client made from a template cannot widen its settings by RFC 7592, even once the template is gone")
    func templateBoundUpdates() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            var template = OAuthClientRequest(
                clientName: "Template", redirectURIs: ["com.example.shop:/callback"],
                grantTypes: ["authorization_code"], responseTypes: ["code"], scope: "openid")
            template.dcrTemplate = true
            let made = try await api.createOAuthClient(app, template)
            let token = try await api.initialAccessToken(app)
            let client = try await api.registration(
                .post, app, json: ["software_id": .string(made.id)], authorization: "Bearer " + token)
            let id = try #require(client["client_id"]?.stringValue)
            var management = try #require(client["registration_access_token"]?.stringValue)
            let widen: JSONValue = [
                "client_id": .string(id), "grant_types": ["client_credentials"], "scope": "admin",
                "redirect_uris": ["com.example.shop:/callback"],
            ]
            expectOAuthError(
                try await api.registration(.put, app, client: id, json: widen, authorization: "Bearer " + management),
                .badRequest, "invalid_client_metadata")
            let same: JSONValue = ["client_id": .string(id), "redirect_uris": ["com.example.shop:/callback"]]
            let kept = try await api.registration(
                .put, app, client: id, json: same, authorization: "Bearer " + management)
            #expect(
                kept["grant_types"] == ["authorization_code"] && kept["scope"]?.stringValue == "openid", "\(kept.text)")
            management = try #require(kept["registration_access_token"]?.stringValue)
            let removed = try await api.send(
                .delete, APIOperation.deleteOAuthClient.path(["id": app.id, "client_id": made.id]),
                bearer: TestServer.adminToken)
            #expect(removed.status == .ok)
            // Held to its own settings then: widening is still refused.
            expectOAuthError(
                try await api.registration(.put, app, client: id, json: widen, authorization: "Bearer " + management),
                .badRequest, "invalid_client_metadata")
            let after = try await api.registration(
                .put, app, client: id, json: same, authorization: "Bearer " + management)
            #expect(after.status == .ok, "\(after.text)")
            #expect(after["grant_types"] == ["authorization_code"] && after["scope"]?.stringValue == "openid")
            #expect(after["software_id"]?.stringValue == made.id)
        }
    }

    @Test("RFC 7592: the registration access token reads, replaces and deletes its own client only, rotating")
    func management() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app, uses: 2)
            let first = try await api.registration(.post, app, json: Self.native, authorization: "Bearer " + token)
            let second = try await api.registration(.post, app, json: Self.native, authorization: "Bearer " + token)
            let id = try #require(first["client_id"]?.stringValue)
            let issued = try #require(first["registration_access_token"]?.stringValue)
            let otherManagement = try #require(second["registration_access_token"]?.stringValue)

            let read = try await api.registration(.get, app, client: id, authorization: "Bearer " + issued)
            #expect(read.status == .ok, "\(read.text)")
            #expect(read["client_id"]?.stringValue == id && read["client_secret"] == nil)
            #expect(read["redirect_uris"] == first["redirect_uris"])
            #expect(read["registration_client_uri"] == first["registration_client_uri"])
            // The read rotated the registration access token: the one presented is spent.
            var management = try #require(read["registration_access_token"]?.stringValue)
            #expect(management != issued)
            for authorization in [
                nil, "Bearer " + otherManagement, "Bearer umfa_rat_wrong", "Bearer " + token, "Bearer " + issued,
            ] {
                let reply = try await api.registration(.get, app, client: id, authorization: authorization)
                #expect(reply.status == .unauthorized, "\(reply.text)")
                #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            // An admin-made client has no registration access token to manage it with.
            let adminMade = try await api.machineClient(app)
            #expect(
                try await api.registration(.get, app, client: adminMade.id, authorization: "Bearer " + management)
                    .status == .unauthorized)

            let replacement = Self.native.merging([
                "client_id": .string(id), "redirect_uris": ["com.example.shop:/v2/callback"],
                "client_name": "Shop for iOS v2",
            ])
            // A wrong client_id or a bad redirect URI changes nothing, not even the token.
            let wrongID = replacement.merging(["client_id": .string(adminMade.id)])
            expectOAuthError(
                try await api.registration(.put, app, client: id, json: wrongID, authorization: "Bearer " + management),
                .badRequest, "invalid_request")
            let badRedirect = replacement.merging(["redirect_uris": ["http://evil.example/"]])
            expectOAuthError(
                try await api.registration(
                    .put, app, client: id, json: badRedirect, authorization: "Bearer " + management),
                .badRequest, "invalid_redirect_uri")
            let updated = try await api.registration(
                .put, app, client: id, json: replacement, authorization: "Bearer " + management)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(updated["redirect_uris"] == ["com.example.shop:/v2/callback"])
            management = try #require(updated["registration_access_token"]?.stringValue)
            let after = try await api.registration(.get, app, client: id, authorization: "Bearer " + management)
            #expect(after["client_name"]?.stringValue == "Shop for iOS v2")
            #expect(after["redirect_uris"] == ["com.example.shop:/v2/callback"])
            management = try #require(after["registration_access_token"]?.stringValue)

            let deleted = try await api.registration(.delete, app, client: id, authorization: "Bearer " + management)
            #expect(deleted.status == .noContent && deleted.text.isEmpty)
            #expect(
                try await api.registration(.get, app, client: id, authorization: "Bearer " + management).status
                    == .unauthorized)
            // The other client is still there.
            #expect(
                try await api.registration(
                    .get, app, client: try #require(second["client_id"]?.stringValue),
                    authorization: "Bearer " + otherManagement
                ).status == .ok)
        }
    }

    @Test("a confidential client's PUT keeps its secret; switching to a secret method makes one")
    func secretsOnUpdate() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.initialAccessToken(app, scope: "reports")
            let machine = try await api.registration(
                .post, app, json: ["grant_types": ["client_credentials"], "scope": "reports"],
                authorization: "Bearer " + token)
            let id = try #require(machine["client_id"]?.stringValue)
            let secret = try #require(machine["client_secret"]?.stringValue)
            var management = "Bearer " + (try #require(machine["registration_access_token"]?.stringValue))
            let kept = try await api.registration(
                .put, app, client: id,
                json: [
                    "client_id": .string(id), "client_secret": .string(secret), "grant_types": ["client_credentials"],
                    "scope": "reports email",
                ], authorization: management)
            #expect(kept.status == .ok && kept["client_secret"] == nil, "\(kept.text)")
            management = "Bearer " + (try #require(kept["registration_access_token"]?.stringValue))
            let granted = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("scope", "email")], basic: (id, secret))
            #expect(granted.status == .ok, "\(granted.text)")
            expectOAuthError(
                try await api.registration(
                    .put, app, client: id,
                    json: [
                        "client_id": .string(id), "client_secret": "umfa_cs_wrong",
                        "grant_types": ["client_credentials"],
                    ],
                    authorization: management),
                .badRequest, "invalid_client_metadata")
            let switched = try await api.registration(
                .put, app, client: id,
                json: [
                    "client_id": .string(id), "grant_types": ["client_credentials"],
                    "token_endpoint_auth_method": "client_secret_post",
                ], authorization: management)
            let fresh = try #require(switched["client_secret"]?.stringValue)
            #expect(fresh != secret)
            expectOAuthError(
                try await api.form(.oauthToken, app, [("grant_type", "client_credentials")], basic: (id, secret)),
                .unauthorized, "invalid_client")
        }
    }

    @Test("discovery names the registration endpoint")
    func discovery() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let metadata = try await api.send(
                .get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(metadata["registration_endpoint"]?.stringValue == Self.registrationURL(app))
        }
    }
}

extension JSONValue {
    /// This object with `members` added or replaced.
    func merging(_ members: [String: JSONValue]) -> JSONValue {
        .object((objectValue ?? [:]).merging(members) { $1 })
    }
}
