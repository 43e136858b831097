import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

@testable import UMFAServer

/// A client that registered itself (docs/contract.md §5) is third-party and looks it.
/// It cannot take the name of an admin-made client or of the application (compared without
/// case, spaces, punctuation and common look-alike letters), the consent page says it
/// registered itself and names the host the browser goes back to, and it is never granted
/// `umfa:passkeys` or `umfa:account`: asking for one at registration is refused, and no
/// authorization request or token gives it one.
@Suite("Dynamic registration: self-registered clients are third-party")
struct DynamicRegistrationThirdPartyTests {
    static let attackerURI = "https://attacker.example/cb"

    /// The bank's own app: a first-party template whose credentials ship inside the app, with
    /// the passkey-management scope.
    static func bankTemplate(_ api: API, _ app: TestApplication) async throws -> TestOAuthClient {
        var request = OAuthClientRequest(
            clientName: "Bank App", redirectURIs: [Authorization.redirectURI],
            grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "client_secret_basic",
            scope: "openid email offline_access umfa:passkeys umfa:account", firstParty: true)
        request.dcrTemplate = true
        return try await api.createOAuthClient(app, request)
    }

    /// Names that read as "Bank App" (or as the application, "Test shop") to a person.
    static let lookAlikes = [
        "Bank App", "bank  app", "B\u{0430}nk \u{0410}pp", "BANK-APP", "\u{FF22}\u{FF41}\u{FF4E}\u{FF4B} App",
        "Bank \u{0391}pp", "B\u{00E1}nk App", "Bank\u{200B} App", "Test shop", "TEST  SH0P",
    ]

    /// The attack (a self-registered "Bank App" that lists and deletes the victim's passkeys)
    /// over `transport`.
    static func attack(_ transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let template = try await Self.bankTemplate(api, app)
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: template, flow: Authorization(), email: "victim@example.com", device: Device.make(),
                scope: "openid email umfa:passkeys")
            let dcr = "Bearer " + (try await DynamicRegistrationTemplateTests.dcrToken(api, app, template))

            // The bank's name, and the application's, in any spelling a person reads the same.
            for name in Self.lookAlikes {
                let reply = try await api.registration(
                    .post, app, json: ["client_name": .string(name), "redirect_uris": [.string(Self.attackerURI)]],
                    authorization: dcr)
                expectOAuthError(reply, .badRequest, "invalid_client_metadata")
            }
            // Also without a template.
            let initial = try await api.initialAccessToken(app)
            expectOAuthError(
                try await api.registration(
                    .post, app, json: ["client_name": "bank app", "redirect_uris": [.string(Self.attackerURI)]],
                    authorization: "Bearer " + initial), .badRequest, "invalid_client_metadata")

            // umfa:passkeys or umfa:account asked for: refused; left out: not inherited.
            for scope in ["openid umfa:passkeys", "openid umfa:account"] {
                expectOAuthError(
                    try await api.registration(
                        .post, app,
                        json: [
                            "client_name": "Photo printer", "redirect_uris": [.string(Self.attackerURI)],
                            "scope": .string(scope),
                        ], authorization: dcr), .badRequest, "invalid_client_metadata")
            }
            let evil = try await api.registration(
                .post, app, json: ["client_name": "Photo printer", "redirect_uris": [.string(Self.attackerURI)]],
                authorization: dcr)
            #expect(evil.status == .created, "\(evil.text)")
            #expect(evil["scope"]?.stringValue == "openid email offline_access", "\(evil.text)")
            let evilID = try #require(evil["client_id"]?.stringValue)
            let management = try #require(evil["registration_access_token"]?.stringValue)

            // RFC 7592 may not rename it to the bank either.
            expectOAuthError(
                try await api.registration(
                    .put, app, client: evilID,
                    json: [
                        "client_id": .string(evilID), "client_name": "B\u{0430}nk App",
                        "redirect_uris": [.string(Self.attackerURI)],
                    ], authorization: "Bearer " + management), .badRequest, "invalid_client_metadata")

            // The consent page says the app registered itself and where the browser goes.
            let flow = Authorization()
            let page = try await api.authorize(
                app, flow.query(client: evilID, scope: "openid email", redirectURI: Self.attackerURI), cookie: cookie)
            #expect(try API.page(page).view == "consent")
            #expect(page.text.contains("data-self-registered=\"true\""), "\(page.text)")
            #expect(page.text.contains("registered itself"))
            #expect(page.text.contains("<strong id=\"consent-host\">attacker.example</strong>"), "\(page.text)")

            // The end of the attack: a token to list and delete the victim's passkeys. Never.
            let asked = try await api.authorize(
                app, flow.query(client: evilID, scope: "openid umfa:passkeys", redirectURI: Self.attackerURI),
                cookie: cookie)
            #expect(try asked.redirect()["error"] == "invalid_scope", "\(asked.status) \(asked.text.prefix(200))")
            // Not even when its stored scopes list it (an admin's edit, an older registration).
            let patched = try await api.send(
                .patch, APIOperation.updateOAuthClient.path(["id": app.id, "client_id": evilID]),
                json: ["scope": "openid email umfa:passkeys"], bearer: TestServer.adminToken)
            #expect(patched.status == .ok, "\(patched.text)")
            let again = try await api.authorize(
                app, flow.query(client: evilID, scope: "openid umfa:passkeys", redirectURI: Self.attackerURI),
                cookie: cookie)
            #expect(try again.redirect()["error"] == "invalid_scope", "\(again.status) \(again.text.prefix(200))")
        }
    }

    @Test("a self-registered client cannot pose as the bank's app nor get umfa:passkeys; consent says who it is")
    func attack() async throws {
        try await Self.attack(.router)
    }

    @Test("over HTTP: a self-registered client cannot pose as the bank's app nor get umfa:passkeys")
    func attackLive() async throws {
        try await Self.attack(.live)
    }

    @Test("a name's key: case, spaces, punctuation, accents, compatibility forms and look-alikes do not count")
    func nameKey() throws {
        let bank = ClientNameReservation.key("Bank App")
        #expect(bank == "bankapp")
        for name in Self.lookAlikes.filter({ !$0.uppercased().hasPrefix("TEST") }) {
            #expect(ClientNameReservation.key(name) == bank, "\(name)")
        }
        for other in ["Bank Apps", "Bank", "Photo printer", "Bank App (registered)"] {
            #expect(ClientNameReservation.key(other) != bank, "\(other)")
        }
        let reservation = ClientNameReservation(reserving: ["Bank App", "Test shop"])
        #expect(throws: OAuthError.self) { try reservation.check("B\u{0430}nk-\u{0410}pp") }
        #expect(throws: OAuthError.self) { try reservation.check("TEST  SH0P") }
        try reservation.check("Photo printer")
    }

    @Test("an admin-made client's consent page carries no self-registration notice")
    func adminClientConsent() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: false, scope: "openid email")
            let page = try await api.authorize(
                app, Authorization().query(client: client.id, scope: "openid email", extra: ["prompt": "create"]))
            #expect(page.status == .ok, "\(page.text)")
            #expect(page.text.contains("data-self-registered=\"false\""), "\(page.text)")
        }
    }
}
