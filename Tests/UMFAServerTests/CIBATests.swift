import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnTypes

/// OpenID CIBA Core 1.0 (docs/ciba.md): a client names a person, the person's device approves or
/// denies with a signed decision, and the client polls the token endpoint for the outcome.
@Suite("Client-initiated backchannel authentication")
struct CIBATests {
    static let grantType = "urn:openid:params:grant-type:ciba"

    /// A confidential CIBA client in poll mode, allowed refresh tokens.
    static func cibaClient(_ api: API, _ app: TestApplication) async throws -> TestOAuthClient {
        try await api.createOAuthClient(
            app,
            OAuthClientRequest(
                clientName: "Bank back office", grantTypes: [grantType, "refresh_token"], responseTypes: [],
                tokenEndpointAuthMethod: "client_secret_basic", scope: "openid profile offline_access"))
    }

    static func basic(_ client: TestOAuthClient) -> (String, String) { (client.id, client.secret ?? "") }

    static func request(
        _ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ parameters: [(String, String)]
    ) async throws -> Reply {
        try await api.form(.oauthBackchannelAuthentication, app, parameters, basic: basic(client))
    }

    static func poll(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ id: String) async throws
        -> Reply
    {
        try await api.form(.oauthToken, app, [("grant_type", grantType), ("auth_req_id", id)], basic: basic(client))
    }

    /// The phone's answer to the approval waiting for `user`: found with a device proof,
    /// redeemed, and decided with the passkey; the text it showed.
    static func answer(
        _ api: API, _ app: TestApplication, user: String, phone: Device, key: DPoPKey, credential: String,
        decision: String
    ) async throws -> (shown: String, status: String?) {
        let path = APIOperation.pendingApprovals.path
        let listed = try await OutOfBandDeviceTests.pending(
            api, app, user: user,
            proof: OutOfBandDeviceTests.proof(key, credential: credential, "POST", path))
        let approval = try #require(listed["approvals"]?.arrayValue?.first, "\(listed.text)")
        let payload = try #require(approval["dispatchTokenResponse"]?.stringValue)
        let started = Reply(
            status: .ok, headers: [:], text: "",
            json: ["appLinkUri": .string(OutOfBandDeviceTests.base + "/open?dispatchTokenResponse=" + payload)])
        let (transaction, assertion) = try await OutOfBandTests.sign(api, started, device: phone, decision: decision)
        let done = try await OutOfBandTests.complete(
            api, transaction, assertion, extra: ["decision": .string(decision)])
        return (approval["message"]?.stringValue ?? "", done["status"]?.stringValue)
    }

    /// The claims of a JWT, unverified (the server's own tests check signatures elsewhere).
    static func claims(_ jwt: String) throws -> JSONValue {
        let parts = jwt.split(separator: ".").map(String.init)
        let payload = try #require(parts.count == 3 ? Base64URL.decode(parts[1]) : nil)
        return try JSONDecoder().decode(JSONValue.self, from: Data(payload))
    }

    @Test("poll mode: pending, slow_down, then the approval's tokens once, with the authorization details")
    func approved() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["authorization_details_types": ["payment_initiation"]], bearer: TestServer.adminToken)
            #expect(patched.status == .ok, "\(patched.text)")
            let (phone, key, credential) = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let client = try await Self.cibaClient(api, app)
            let details = #"[{"type":"payment_initiation","instructedAmount":{"currency":"EUR","amount":"42.00"}}]"#
            let started = try await Self.request(
                api, app, client,
                [
                    ("scope", "openid profile"), ("login_hint", "alice"), ("binding_message", "Pay 42 EUR, ref 7"),
                    ("requested_expiry", "30"), ("authorization_details", details),
                ])
            #expect(started.status == .ok, "\(started.text)")
            let id = try #require(started["auth_req_id"]?.stringValue)
            // §7.3: requested_expiry is held to 60..600 s; the interval is always given.
            #expect(started["expires_in"]?.intValue == 60 && started["interval"]?.intValue == 5)

            expectOAuthError(try await Self.poll(api, app, client, id), .badRequest, "authorization_pending")
            expectOAuthError(try await Self.poll(api, app, client, id), .badRequest, "slow_down")

            let (shown, status) = try await Self.answer(
                api, app, user: "alice", phone: phone, key: key, credential: credential, decision: "approve")
            #expect(status == "succeeded")
            // A line the server writes (who asks, for what), the binding message, the details.
            #expect(
                shown.hasPrefix(
                    "Bank back office asks for: openid, profile\nPay 42 EUR, ref 7\n\ntype: \"payment_initiation\"\n"),
                "\(shown)")
            #expect(shown.contains("instructedAmount.amount: \"42.00\""))

            api.clock.advance(by: 11)
            let tokens = try await Self.poll(api, app, client, id)
            #expect(tokens.status == .ok, "\(tokens.text)")
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(details.utf8))
            #expect(tokens["authorization_details"] == expected)
            let access = try Self.claims(try #require(tokens["access_token"]?.stringValue))
            #expect(access["authorization_details"] == expected && access["sub"] == "alice")
            let idToken = try Self.claims(try #require(tokens["id_token"]?.stringValue))
            #expect(idToken["sub"] == "alice" && idToken["aud"]?.stringValue == client.id)
            let introspected = try await api.form(
                .oauthIntrospect, app, [("token", try #require(tokens["access_token"]?.stringValue))],
                basic: Self.basic(client))
            #expect(introspected["active"] == true && introspected["authorization_details"] == expected)
            let refresh = try await api.form(
                .oauthIntrospect, app, [("token", try #require(tokens["refresh_token"]?.stringValue))],
                basic: Self.basic(client))
            #expect(refresh["authorization_details"] == expected, "\(refresh.text)")

            // Taken once.
            expectOAuthError(try await Self.poll(api, app, client, id), .badRequest, "invalid_grant")
        }
    }

    @Test("a denial is access_denied; an unknown person looks the same as one who never answers: expired_token")
    func deniedAndUnknown() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (phone, key, credential) = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let client = try await Self.cibaClient(api, app)
            let denied = try await Self.request(api, app, client, [("scope", "openid"), ("login_hint", "alice")])
            let deniedID = try #require(denied["auth_req_id"]?.stringValue)
            let (shown, status) = try await Self.answer(
                api, app, user: "alice", phone: phone, key: key, credential: credential, decision: "deny")
            #expect(status == "denied" && shown == "Bank back office asks for: openid")
            expectOAuthError(try await Self.poll(api, app, client, deniedID), .badRequest, "access_denied")

            let known = try await Self.request(api, app, client, [("scope", "openid"), ("login_hint", "alice")])
            let unknown = try await Self.request(api, app, client, [("scope", "openid"), ("login_hint", "mallory")])
            #expect(known.status == .ok && unknown.status == .ok, "\(unknown.text)")
            #expect(Set(known.json?.objectValue?.keys ?? [:].keys) == Set(unknown.json?.objectValue?.keys ?? [:].keys))
            #expect(known["expires_in"] == unknown["expires_in"] && known["interval"] == unknown["interval"])
            for reply in [known, unknown] {
                let id = try #require(reply["auth_req_id"]?.stringValue)
                expectOAuthError(try await Self.poll(api, app, client, id), .badRequest, "authorization_pending")
            }
            api.clock.advance(by: 301)
            for reply in [known, unknown] {
                let id = try #require(reply["auth_req_id"]?.stringValue)
                expectOAuthError(try await Self.poll(api, app, client, id), .badRequest, "expired_token")
            }
        }
    }

    @Test("refusals: hints, scope, user_code, binding message, ping token, another client's request, public clients")
    func refusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            _ = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let client = try await Self.cibaClient(api, app)
            let other = try await Self.cibaClient(api, app)
            for (parameters, code) in [
                ([("scope", "openid")], "invalid_request"),
                ([("scope", "openid"), ("login_hint", "alice"), ("login_hint_token", "x")], "invalid_request"),
                ([("scope", "profile"), ("login_hint", "alice")], "invalid_scope"),
                ([("scope", "openid"), ("login_hint", "alice"), ("user_code", "1234")], "invalid_request"),
                (
                    [
                        ("scope", "openid"), ("login_hint", "alice"),
                        ("binding_message", String(repeating: "x", count: 129)),
                    ],
                    "invalid_binding_message"
                ),
                (
                    [("scope", "openid"), ("login_hint", "alice"), ("binding_message", "a\u{202E}b")],
                    "invalid_binding_message"
                ),
                ([("scope", "openid"), ("login_hint", "alice"), ("requested_expiry", "soon")], "invalid_request"),
                ([("scope", "openid"), ("id_token_hint", "not.a.jwt")], "invalid_request"),
                ([("scope", "openid"), ("login_hint_token", "not.a.jwt")], "invalid_request"),
                (
                    [("scope", "openid"), ("login_hint", "alice"), ("authorization_details", #"[{"type":"x"}]"#)],
                    "invalid_authorization_details"
                ),
            ] {
                expectOAuthError(try await Self.request(api, app, client, parameters), .badRequest, code)
            }
            // A wrong secret is invalid_client, as at the token endpoint.
            let wrong = try await api.form(
                .oauthBackchannelAuthentication, app, [("scope", "openid"), ("login_hint", "alice")],
                basic: (client.id, "wrong"))
            expectOAuthError(wrong, .unauthorized, "invalid_client")
            // Another client's auth_req_id is not this one's.
            let started = try await Self.request(api, app, client, [("scope", "openid"), ("login_hint", "alice")])
            let id = try #require(started["auth_req_id"]?.stringValue)
            expectOAuthError(try await Self.poll(api, app, other, id), .badRequest, "invalid_grant")
            // A client without the grant may not start one.
            let plain = try await api.createOAuthClient(
                app,
                OAuthClientRequest(
                    clientName: "Machine", grantTypes: ["client_credentials"], responseTypes: [],
                    tokenEndpointAuthMethod: "client_secret_basic", scope: "openid"))
            expectOAuthError(
                try await Self.request(api, app, plain, [("scope", "openid"), ("login_hint", "alice")]), .badRequest,
                "unauthorized_client")

            // Registration: CIBA needs a confidential client; ping mode needs an endpoint, then a token.
            for request in [
                OAuthClientRequest(
                    clientName: "Public", grantTypes: [Self.grantType], responseTypes: [],
                    tokenEndpointAuthMethod: "none", scope: "openid"),
                {
                    var ping = OAuthClientRequest(
                        clientName: "Ping", grantTypes: [Self.grantType], responseTypes: [],
                        tokenEndpointAuthMethod: "client_secret_basic", scope: "openid")
                    ping.backchannelTokenDeliveryMode = "ping"
                    return ping
                }(),
                {
                    var push = OAuthClientRequest(
                        clientName: "Push", grantTypes: [Self.grantType], responseTypes: [],
                        tokenEndpointAuthMethod: "client_secret_basic", scope: "openid")
                    push.backchannelTokenDeliveryMode = "push"
                    return push
                }(),
            ] {
                let refused = try await api.send(
                    .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
                    bearer: TestServer.adminToken)
                #expect(refused.status == .badRequest, "\(refused.text)")
            }
            var ping = OAuthClientRequest(
                clientName: "Ping", grantTypes: [Self.grantType], responseTypes: [],
                tokenEndpointAuthMethod: "client_secret_basic", scope: "openid")
            ping.backchannelTokenDeliveryMode = "ping"
            ping.backchannelClientNotificationEndpoint = "http://127.0.0.1:9/ciba"
            let pinged = try await api.createOAuthClient(app, ping)
            expectOAuthError(
                try await Self.request(api, app, pinged, [("scope", "openid"), ("login_hint", "alice")]), .badRequest,
                "invalid_request")

            // A client that registers itself may not take the grant: it could ask anyone's phone.
            let token = try await api.initialAccessToken(app, uses: 1, scope: "openid")
            let registered = try await api.registration(
                .post, app,
                json: [
                    "grant_types": [.string(Self.grantType)], "client_name": "Your Bank", "scope": "openid",
                    "token_endpoint_auth_method": "client_secret_basic",
                ], authorization: "Bearer " + token)
            expectOAuthError(registered, .badRequest, "invalid_client_metadata")
        }
    }

    @Test("a phone with five approvals waiting is asked no more: the sixth request looks the same and expires")
    func pendingLimit() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (_, key, credential) = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let client = try await Self.cibaClient(api, app)
            var ids: [String] = []
            for _ in 0..<6 {
                let started = try await Self.request(api, app, client, [("scope", "openid"), ("login_hint", "alice")])
                #expect(started.status == .ok, "\(started.text)")
                ids.append(try #require(started["auth_req_id"]?.stringValue))
            }
            let path = APIOperation.pendingApprovals.path
            let listed = try await OutOfBandDeviceTests.pending(
                api, app, user: "alice", proof: OutOfBandDeviceTests.proof(key, credential: credential, "POST", path))
            #expect(listed["approvals"]?.arrayValue?.count == 5, "\(listed.text)")
            api.clock.advance(by: 301)
            expectOAuthError(try await Self.poll(api, app, client, ids[5]), .badRequest, "expired_token")
        }
    }

    @Test("a private_key_jwt client (as FAPI-CIBA asks) authenticates with a signed assertion, each jti once")
    func privateKeyJWT() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            _ = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let key = DPoPKey(now: { api.clock.now })
            var request = OAuthClientRequest(
                clientName: "Signed bank", grantTypes: [Self.grantType], responseTypes: [],
                tokenEndpointAuthMethod: "private_key_jwt", scope: "openid")
            request.jwks = PrivateKeyJWTTests.jwks(key)
            let client = try await api.createOAuthClient(app, request)
            let issuer = String(DPoPServerTests.tokenURL(app).dropLast("/token".count))
            let assertion = key.assertion(client: client.id, audience: issuer)
            let signed: [(String, String)] = [
                ("client_assertion_type", PrivateKeyJWTTests.assertionType), ("client_assertion", assertion),
            ]
            let started = try await api.form(
                .oauthBackchannelAuthentication, app, [("scope", "openid"), ("login_hint", "alice")] + signed)
            #expect(started.status == .ok, "\(started.text)")
            let id = try #require(started["auth_req_id"]?.stringValue)
            // The same assertion again is a replay.
            expectOAuthError(
                try await api.form(
                    .oauthBackchannelAuthentication, app, [("scope", "openid"), ("login_hint", "alice")] + signed),
                .unauthorized, "invalid_client")
            let poll = try await api.form(
                .oauthToken, app,
                [
                    ("grant_type", Self.grantType), ("auth_req_id", id),
                    ("client_assertion_type", PrivateKeyJWTTests.assertionType),
                    ("client_assertion", key.assertion(client: client.id, audience: issuer)),
                ])
            expectOAuthError(poll, .badRequest, "authorization_pending")
        }
    }

    @Test("discovery lists CIBA, its modes and the declared authorization details types")
    func discovery() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            _ = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["authorization_details_types": ["payment_initiation", "account_information"]],
                bearer: TestServer.adminToken)
            let metadata = try await api.send(
                .get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(
                metadata["backchannel_authentication_endpoint"]?.stringValue?.hasSuffix("/oidc/\(app.id)/bc-authorize")
                    == true)
            #expect(metadata["backchannel_token_delivery_modes_supported"] == ["poll", "ping"])
            #expect(metadata["backchannel_user_code_parameter_supported"] == false)
            #expect(metadata["authorization_details_types_supported"] == ["payment_initiation", "account_information"])
            #expect(metadata["grant_types_supported"]?.arrayValue?.contains(.string(Self.grantType)) == true)
        }
    }
}
