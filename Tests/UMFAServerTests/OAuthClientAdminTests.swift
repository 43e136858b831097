import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// docs/contract.md §5 "clients": the admin API's OAuth clients.
@Suite("OpenID Connect provider: OAuth clients in the admin API")
struct OAuthClientAdminTests {
    @Test("a confidential client's secret is shown once, stored hashed, and rotation replaces it")
    func secretShownOnce() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let secret = try #require(client.secret)
            #expect(secret.hasPrefix("umfa_cs_"))
            let shown = try await api.send(
                .get, APIOperation.getOAuthClient.path(["id": app.id, "client_id": client.id]),
                bearer: TestServer.adminToken)
            #expect(shown.status == .ok)
            #expect(shown["client_secret"] == nil, "never shown again")
            #expect(shown["grant_types"]?.arrayValue?.compactMap(\.stringValue) == ["client_credentials"])
            #expect(shown["scope"]?.stringValue == "orders:read orders:write")
            #expect(shown["token_endpoint_auth_method"]?.stringValue == "client_secret_basic")
            #expect(!shown.text.contains(secret))

            let rotated = try await api.send(
                .post, APIOperation.rotateOAuthClientSecret.path(["id": app.id, "client_id": client.id]),
                bearer: TestServer.adminToken)
            let newSecret = try #require(rotated["client_secret"]?.stringValue)
            #expect(newSecret != secret)
            let grant: [(String, String)] = [("grant_type", "client_credentials")]
            expectOAuthError(
                try await api.form(.oauthToken, app, grant, basic: (client.id, secret)), .unauthorized,
                "invalid_client")
            #expect(try await api.form(.oauthToken, app, grant, basic: (client.id, newSecret)).status == .ok)
        }
    }

    @Test("settings that break the rules are 400 naming the member, and nothing is stored")
    func refusedSettings() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let cases: [(OAuthClientRequest, String)] = [
                (OAuthClientRequest(grantTypes: ["client_credentials"]), "client_name is required"),
                (
                    OAuthClientRequest(clientName: "x", redirectURIs: ["http://shop.example/cb"]),
                    "redirect_uris entries must use https, http on a loopback address, or a private-use scheme (RFC 8252)"
                ),
                (
                    OAuthClientRequest(clientName: "x", redirectURIs: ["https://shop.example/cb#frag"]),
                    "redirect_uris entries must be absolute URIs without a fragment"
                ),
                (
                    OAuthClientRequest(clientName: "x", grantTypes: ["password"]),
                    #"grant_types must be distinct values of ["authorization_code", "client_credentials", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code", "urn:openid:params:grant-type:ciba"]"#
                ),
                (
                    OAuthClientRequest(
                        clientName: "x", grantTypes: ["client_credentials"], responseTypes: [],
                        tokenEndpointAuthMethod: "none"),
                    "client_credentials needs a confidential client (a secret)"
                ),
                (
                    OAuthClientRequest(clientName: "x", grantTypes: ["authorization_code"]),
                    "authorization_code needs at least one redirect_uris entry"
                ),
                (
                    OAuthClientRequest(clientName: "x", grantTypes: ["client_credentials"], scope: "a\"b"),
                    "scope must be space-separated scope tokens (RFC 6749 §3.3)"
                ),
                (
                    OAuthClientRequest(
                        clientName: "x", grantTypes: ["client_credentials"], responseTypes: [],
                        accessTokenTTLSeconds: 10),
                    "access_token_ttl_seconds must be 60 to 86400"
                ),
            ]
            for (request, message) in cases {
                let reply = try await api.send(
                    .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
                    bearer: TestServer.adminToken)
                expectError(reply, .badRequest, message: message)
            }
            var publicTemplate = OAuthClientRequest(
                clientName: "x", redirectURIs: ["https://a.example/cb"], tokenEndpointAuthMethod: "none")
            publicTemplate.dcrTemplate = true
            expectError(
                try await api.send(
                    .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(publicTemplate),
                    bearer: TestServer.adminToken), .badRequest,
                message: "dcr_template needs a confidential client: it authenticates for scope dcr")
            let list = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(list["clients"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("update keeps absent members, delete removes; other applications and tokens are refused")
    func updateAndDelete() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let client = try await api.createOAuthClient(
                app,
                OAuthClientRequest(
                    clientName: "Shop", redirectURIs: ["https://shop.example/cb", "http://127.0.0.1/cb"],
                    scope: "openid email"))
            #expect(client.secret != nil)
            let path = APIOperation.updateOAuthClient.path(["id": app.id, "client_id": client.id])
            let updated = try await api.send(
                .patch, path, json: try .encoding(OAuthClientRequest(clientName: "Shop 2", firstParty: true)),
                bearer: TestServer.adminToken)
            #expect(updated.status == .ok)
            #expect(updated["client_name"]?.stringValue == "Shop 2" && updated["first_party"]?.boolValue == true)
            #expect(
                updated["redirect_uris"]?.arrayValue?.compactMap(\.stringValue) == [
                    "https://shop.example/cb", "http://127.0.0.1/cb",
                ])
            #expect(updated["scope"]?.stringValue == "openid email")
            #expect(updated["client_secret"] == nil)

            let otherPath = APIOperation.getOAuthClient.path(["id": other.id, "client_id": client.id])
            expectError(try await api.send(.get, otherPath, bearer: TestServer.adminToken), .notFound)
            expectError(try await api.send(.get, path, bearer: app.apiKey), .unauthorized)

            let removed = try await api.send(.delete, path, bearer: TestServer.adminToken)
            #expect(removed["removed"]?.boolValue == true)
            expectError(try await api.send(.get, path, bearer: TestServer.adminToken), .notFound)
        }
    }
}
