import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// Introspection (docs/contract.md §5, "Revocation, introspection, userinfo"): who may introspect
/// (RFC 7662 §2.1, §4) and what a bound refresh token says of its key (RFC 9449 §6.2).
@Suite("OpenID Connect provider: who may introspect, and what a bound refresh token shows")
struct IntrospectionAccessTests {
    static let grant = [("grant_type", "client_credentials")]
    static let inactive = JSONValue.object(["active": .bool(false)])

    /// `PATCH` of the application's `introspection_clients`.
    static func allowIntrospection(_ api: API, _ app: TestApplication, _ clients: [String]) async throws -> Reply {
        try await api.send(
            .patch, APIOperation.updateApplication.path(["id": app.id]),
            json: ["introspection_clients": .array(clients.map(JSONValue.string))], bearer: TestServer.adminToken)
    }

    /// A confidential client that registered itself with an initial access token.
    static func selfRegistered(_ api: API, _ app: TestApplication) async throws -> (String, String) {
        let made = try await api.registration(
            .post, app, json: ["grant_types": ["client_credentials"], "scope": "email", "client_name": "Prober"],
            authorization: "Bearer " + (try await api.initialAccessToken(app)))
        return (
            try #require(made["client_id"]?.stringValue, "\(made.text)"),
            try #require(made["client_secret"]?.stringValue, "\(made.text)")
        )
    }

    /// A self-registered client may not introspect at all (401 invalid_client,
    /// its own tokens included); an admin-made client sees another client's token as inactive
    /// until the application lists it in `introspection_clients`, and always sees its own.
    static func oracleClosed(_ api: API) async throws {
        let app = try await api.createApplication(policy: "grant")
        let billing = try await api.machineClient(app)
        let billingAuth = (billing.id, try #require(billing.secret))
        let token = try #require(
            try await api.form(.oauthToken, app, grant, basic: billingAuth)["access_token"]?.stringValue)
        let (proberID, proberSecret) = try await selfRegistered(api, app)
        let probersOwn = try #require(
            try await api.form(.oauthToken, app, grant, basic: (proberID, proberSecret))["access_token"]?.stringValue)

        // The leaked-token oracle: refused to a client that registered itself, for any token.
        for candidate in [token, probersOwn, "umfa_rt_guess"] {
            let refused = try await api.form(
                .oauthIntrospect, app, [("token", candidate)], basic: (proberID, proberSecret))
            expectOAuthError(refused, .unauthorized, "invalid_client")
            #expect(refused["active"] == nil)
        }
        // An admin-made client that is not a listed resource server: another client's token is
        // inactive to it, its own is not.
        let resourceServer = try await api.machineClient(app, scope: "introspect")
        let rsAuth = (resourceServer.id, try #require(resourceServer.secret))
        #expect(try await api.form(.oauthIntrospect, app, [("token", token)], basic: rsAuth).json == inactive)
        let own = try await api.form(.oauthIntrospect, app, [("token", token)], basic: billingAuth)
        #expect(own["active"]?.boolValue == true && own["client_id"]?.stringValue == billing.id, "\(own.text)")

        // The application lists the resource server: now it sees every client's tokens.
        let allowed = try await allowIntrospection(api, app, [resourceServer.id])
        #expect(allowed.status == .ok, "\(allowed.text)")
        #expect(allowed["introspection_clients"] == .array([.string(resourceServer.id)]))
        let seen = try await api.form(.oauthIntrospect, app, [("token", token)], basic: rsAuth)
        #expect(seen["active"]?.boolValue == true && seen["client_id"]?.stringValue == billing.id, "\(seen.text)")
        // A self-registered client cannot be listed, nor a client the application does not have.
        for refused in [proberID, "no-such-client"] {
            let answer = try await allowIntrospection(api, app, [refused])
            #expect(answer.status == .badRequest, "\(refused): \(answer.text)")
        }
        let stillListed = try await api.send(
            .get, APIOperation.getApplication.path(["id": app.id]), bearer: TestServer.adminToken)
        #expect(stillListed["introspection_clients"] == .array([.string(resourceServer.id)]), "\(stillListed.text)")
        // Listed or not, a self-registered client stays refused.
        expectOAuthError(
            try await api.form(.oauthIntrospect, app, [("token", token)], basic: (proberID, proberSecret)),
            .unauthorized, "invalid_client")
    }

    @Test(
        "introspection (RFC 7662 §4): a self-registered client may not introspect; another client's token is inactive")
    func oracleClosedInLayer() async throws {
        try await TestServer.with { api in try await Self.oracleClosed(api) }
    }

    @Test("introspection (RFC 7662 §4), over HTTP: the introspection oracle is closed on a live server")
    func oracleClosedLive() async throws {
        try await TestServer.with(.live) { api in try await Self.oracleClosed(api) }
    }

    @Test("introspection (RFC 7662 §4): another client's refresh token is inactive to an unlisted client")
    func otherClientsRefreshToken() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let shop = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: shop, flow: flow, email: "ria@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: shop, code: try #require(redirect["code"]), verifier: flow.verifier)
            let refresh = try #require(tokens["refresh_token"]?.stringValue, "\(tokens.text)")
            let other = try await api.machineClient(app)
            let otherAuth = (other.id, try #require(other.secret))
            #expect(
                try await api.form(.oauthIntrospect, app, [("token", refresh)], basic: otherAuth).json == Self.inactive)
            let own = try await api.form(
                .oauthIntrospect, app, [("token", refresh)], basic: (shop.id, try #require(shop.secret)))
            #expect(own["active"]?.boolValue == true && own["token_type"]?.stringValue == "refresh_token")
        }
    }

    /// A public client's refresh token bound to its DPoP key alone (no
    /// certificate) shows `cnf.jkt` to introspection (RFC 7662 §2.2, RFC 9449 §6.2).
    static func boundRefreshShowsKey(_ api: API) async throws {
        let app = try await api.createApplication(policy: "grant")
        let client = try await api.codeClient(app, firstParty: true, method: "none")
        let key = DPoPKey(now: { api.clock.now })
        let flow = Authorization()
        let (redirect, _) = try await api.signUpThroughFlow(
            app, client: client, flow: flow, email: "kim@example.com", device: Device.make())
        let tokens = try await api.form(
            .oauthToken, app,
            [
                ("grant_type", "authorization_code"), ("code", try #require(redirect["code"])),
                ("redirect_uri", Authorization.redirectURI), ("code_verifier", flow.verifier),
                ("client_id", client.id),
            ], dpop: key.proof("POST", DPoPServerTests.tokenURL(app)))
        let refresh = try #require(tokens["refresh_token"]?.stringValue, "\(tokens.text)")
        let resourceServer = try await api.machineClient(app, scope: "introspect")
        #expect(try await allowIntrospection(api, app, [resourceServer.id]).status == .ok)
        let introspected = try await api.form(
            .oauthIntrospect, app, [("token", refresh)], basic: (resourceServer.id, try #require(resourceServer.secret))
        )
        #expect(introspected["active"]?.boolValue == true, "\(introspected.text)")
        #expect(introspected["cnf"]?["jkt"]?.stringValue == key.thumbprint, "\(introspected.text)")
        #expect(introspected["cnf"]?["x5t#S256"] == nil)
    }

    @Test("introspection (RFC 9449 §6.2): introspecting a DPoP-bound refresh token returns cnf.jkt")
    func boundRefreshShowsKeyInLayer() async throws {
        try await TestServer.with { api in try await Self.boundRefreshShowsKey(api) }
    }

    @Test("introspection (RFC 9449 §6.2), over HTTP: a DPoP-bound refresh token's cnf.jkt from a live server")
    func boundRefreshShowsKeyLive() async throws {
        try await TestServer.with(.live) { api in try await Self.boundRefreshShowsKey(api) }
    }
}
