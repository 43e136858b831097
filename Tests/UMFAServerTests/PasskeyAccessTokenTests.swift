import Crypto
import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

/// `/api/umfa/me/credentials…` with an OAuth access token of the application's issuer granted
/// `umfa:passkeys` (RFC 6750, RFC 9068), DPoP-checked when bound (RFC 9449 §7), and every way
/// of presenting the wrong token refused.
@Suite("Self-service passkeys with an access token")
struct PasskeyAccessTokenTests {
    static let scope = "openid email umfa:passkeys"
    static let base = "http://127.0.0.1:0"

    static func url(_ path: String) -> String { base + path }

    /// A user signed up through the code flow with `scope`; the token endpoint's answer.
    static func tokens(
        _ api: API, _ app: TestApplication, client: TestOAuthClient, email: String, scope: String = scope,
        key: DPoPKey? = nil
    ) async throws -> Reply {
        let flow = Authorization()
        let (redirect, _) = try await api.signUpThroughFlow(
            app, client: client, flow: flow, email: email, device: Device.make(), scope: scope)
        var parameters = [
            ("grant_type", "authorization_code"), ("code", try #require(redirect["code"])),
            ("redirect_uri", Authorization.redirectURI), ("code_verifier", flow.verifier),
        ]
        let basic = client.secret.map { (client.id, $0) }
        if basic == nil { parameters.append(("client_id", client.id)) }
        let proof = key.map { $0.proof("POST", DPoPServerTests.tokenURL(app)) }
        let reply = try await api.form(.oauthToken, app, parameters, basic: basic, dpop: proof)
        #expect(reply.status == .ok, "\(reply.text)")
        return reply
    }

    /// A request with any `Authorization` and `DPoP` header.
    static func send(
        _ api: API, _ method: HTTPRequest.Method, _ path: String, authorization: String?, dpop: String? = nil,
        json: JSONValue? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        if let dpop { headers[DPoPKey.header] = dpop }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
        }
        let response = try await api.client.execute(uri: path, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    static let list = APIOperation.listMyCredentials.path
    static func one(_ id: String) -> String { APIOperation.renameMyCredential.path(["credential_id": id]) }

    @Test("a Bearer token with umfa:passkeys lists, renames and deletes; without the scope 403 insufficient_scope")
    func bearer() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(
                app, firstParty: true, scope: "openid email offline_access umfa:passkeys")
            let granted = try await Self.tokens(api, app, client: client, email: "ann@example.com")
            #expect(granted["token_type"]?.stringValue == "Bearer")
            let token = try #require(granted["access_token"]?.stringValue)

            let listed = try await Self.send(api, .get, Self.list, authorization: "Bearer \(token)")
            #expect(listed.status == .ok, "\(listed.text)")
            let id = try #require(listed["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue)
            #expect(listed["credentials"]?.arrayValue?.count == 1)
            let renamed = try await Self.send(
                api, .patch, Self.one(id), authorization: "Bearer \(token)", json: ["name": "Ann's phone"])
            #expect(renamed.status == .ok && renamed["name"]?.stringValue == "Ann's phone", "\(renamed.text)")

            // A token without the scope: 403, RFC 6750 §3.1's challenge, UMFA's body.
            let narrow = try await Self.tokens(
                api, app, client: client, email: "ann.two@example.com", scope: "openid email")
            let unscoped = try #require(narrow["access_token"]?.stringValue)
            for (method, path) in [(HTTPRequest.Method.get, Self.list), (.delete, Self.one(id))] {
                let refused = try await Self.send(api, method, path, authorization: "Bearer \(unscoped)")
                expectError(refused, .forbidden)
                #expect(
                    refused.headers[.wwwAuthenticate]
                        == #"Bearer realm="umfa", error="insufficient_scope", scope="umfa:passkeys""#)
            }
            // The last passkey only with confirm_last; then the token of its sign-in ends with it.
            expectError(try await Self.send(api, .delete, Self.one(id), authorization: "Bearer \(token)"), .conflict)
            let removed = try await Self.send(
                api, .delete, Self.one(id) + "?confirm_last=true", authorization: "Bearer \(token)")
            #expect(removed.status == .ok && removed["removed"] == true, "\(removed.text)")
            let after = try await Self.send(api, .get, Self.list, authorization: "Bearer \(token)")
            expectError(after, .unauthorized)
            #expect(after.headers[.wwwAuthenticate] == #"Bearer realm="umfa", error="invalid_token""#)
        }
    }

    @Test("a refreshed token of an old sign-in cannot manage passkeys: 401 insufficient_user_authentication, max_age")
    func staleSignIn() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(
                app, firstParty: true, scope: "openid email offline_access umfa:passkeys")
            let granted = try await Self.tokens(
                api, app, client: client, email: "old@example.com", scope: "openid email offline_access umfa:passkeys")
            let refreshToken = try #require(granted["refresh_token"]?.stringValue)
            let fresh = try #require(granted["access_token"]?.stringValue)
            #expect(try await Self.send(api, .get, Self.list, authorization: "Bearer \(fresh)").status == .ok)

            // The attack: a refresh token (stolen, or an old session) mints a new access token
            // long after the sign-in; the new token keeps the sign-in's auth_time (RFC 9470 §3).
            api.clock.advance(by: 301)
            let basic = client.secret.map { (client.id, $0) }
            var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            if basic == nil { parameters.append(("client_id", client.id)) }
            let refreshed = try await api.form(.oauthToken, app, parameters, basic: basic)
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let late = try #require(refreshed["access_token"]?.stringValue)
            for (method, path) in [(HTTPRequest.Method.get, Self.list), (.delete, Self.one("any"))] {
                let refused = try await Self.send(api, method, path, authorization: "Bearer \(late)")
                expectError(refused, .unauthorized)
                #expect(
                    refused.headers[.wwwAuthenticate]
                        == #"Bearer realm="umfa", error="insufficient_user_authentication", acr_values="urn:umfa:acr:passkey", max_age=300"#
                )
            }
        }
    }

    @Test("a DPoP-bound token: only as DPoP, with a fresh proof of its key for this method and URL")
    func dpopBound() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(
                app, firstParty: true, method: "none", scope: "openid email offline_access umfa:passkeys")
            let key = DPoPKey(now: { api.clock.now })
            let granted = try await Self.tokens(api, app, client: client, email: "bo@example.com", key: key)
            #expect(granted["token_type"]?.stringValue == "DPoP")
            let token = try #require(granted["access_token"]?.stringValue)
            let listURL = Self.url(Self.list)

            let good = key.proof("GET", listURL, accessToken: token)
            let listed = try await Self.send(api, .get, Self.list, authorization: "DPoP \(token)", dpop: good)
            #expect(listed.status == .ok, "\(listed.text)")
            let id = try #require(listed["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue)

            let attempts: [(String, String?, String)] = [
                ("Bearer \(token)", nil, "as Bearer"),
                ("DPoP \(token)", nil, "without a proof"),
                ("DPoP \(token)", good, "the proof replayed"),
                (
                    "DPoP \(token)", DPoPKey(now: { api.clock.now }).proof("GET", listURL, accessToken: token),
                    "another key"
                ),
                ("DPoP \(token)", key.proof("GET", listURL), "no ath"),
                ("DPoP \(token)", key.proof("POST", listURL, accessToken: token), "another method"),
                (
                    "DPoP \(token)", key.proof("GET", DPoPServerTests.userinfoURL(app), accessToken: token),
                    "another URL"
                ),
            ]
            for (authorization, proof, problem) in attempts {
                let refused = try await Self.send(api, .get, Self.list, authorization: authorization, dpop: proof)
                expectError(refused, .unauthorized)
                #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("DPoP realm=\"umfa\"") == true, "\(problem)")
            }
            // The proof names the path without the query (RFC 9449 §4.2).
            let renamed = try await Self.send(
                api, .patch, Self.one(id), authorization: "DPoP \(token)",
                dpop: key.proof("PATCH", Self.url(Self.one(id)), accessToken: token), json: ["name": "Bo's tablet"])
            #expect(renamed.status == .ok, "\(renamed.text)")
        }
    }

    @Test("another application's token sees only its own user; machine and forged tokens are refused")
    func foreignTokens() async throws {
        try await TestServer.with { api in
            let shop = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let scope = "openid email offline_access umfa:passkeys"
            let shopClient = try await api.codeClient(shop, firstParty: true, scope: scope)
            let otherClient = try await api.codeClient(other, firstParty: true, scope: scope)
            let shopToken = try #require(
                try await Self.tokens(api, shop, client: shopClient, email: "cy@example.com")["access_token"]?
                    .stringValue)
            let otherToken = try #require(
                try await Self.tokens(api, other, client: otherClient, email: "cy@example.com")["access_token"]?
                    .stringValue)
            let shopList = try await Self.send(api, .get, Self.list, authorization: "Bearer \(shopToken)")
            let shopID = try #require(shopList["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue)
            // The other application's token: its own user's passkeys, never the shop's.
            let otherList = try await Self.send(api, .get, Self.list, authorization: "Bearer \(otherToken)")
            #expect(otherList.status == .ok)
            #expect(
                otherList["credentials"]?.arrayValue?.contains { $0["credential_id"]?.stringValue == shopID } == false)
            expectError(
                try await Self.send(
                    api, .delete, Self.one(shopID) + "?confirm_last=true", authorization: "Bearer \(otherToken)"),
                .notFound)
            expectError(
                try await Self.send(
                    api, .patch, Self.one(shopID), authorization: "Bearer \(otherToken)", json: ["name": "mine"]),
                .notFound)

            // A machine token with the scope stands for no user.
            let machine = try await api.machineClient(shop, scope: "umfa:passkeys")
            let machineSecret = try #require(machine.secret)
            let machineReply = try await api.form(
                .oauthToken, shop, [("grant_type", "client_credentials")], basic: (machine.id, machineSecret))
            let machineToken = try #require(machineReply["access_token"]?.stringValue, "\(machineReply.text)")
            expectError(
                try await Self.send(api, .get, Self.list, authorization: "Bearer \(machineToken)"), .unauthorized)

            // The shop's token re-signed with another key, and with another issuer's iss: refused.
            let parts = shopToken.split(separator: ".").map(String.init)
            let forger = P256.Signing.PrivateKey()
            let forged = { (header: String, payload: String) -> String in
                let input = header + "." + payload
                let signature = (try? forger.signature(for: Array(input.utf8)))?.rawRepresentation ?? Data()
                return input + "." + Base64URL.encode(Array(signature))
            }
            let payload = try #require(Base64URL.decode(parts[1]))
            var claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
            claims["iss"] = "https://elsewhere.example/oidc/" + shop.id.lowercased()
            let moved = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
            for token in [forged(parts[0], parts[1]), parts[0] + "." + moved + "." + parts[2]] {
                let refused = try await Self.send(api, .get, Self.list, authorization: "Bearer \(token)")
                expectError(refused, .unauthorized)
                #expect(refused.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            }
            // Still fine with the real one.
            #expect(try await Self.send(api, .get, Self.list, authorization: "Bearer \(shopToken)").status == .ok)
        }
    }
}
