import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATestSupport
import X509

@testable import UMFAServer

/// Template inheritance (docs/contract.md §5, dynamic registration): a client registered from a
/// template (RFC 7591 `software_id`, or the template's own `dcr` token) keeps every protection of
/// the template — sender constraint (DPoP and certificate binding), PAR, authentication method
/// strength, scopes, grant types, token lifetimes — and may only tighten them, at registration and
/// at every RFC 7592 `PUT`. One declaration (``ClientMetadataInheritance``) says for each stored
/// setting of a client how a derived client may differ.
@Suite("Dynamic registration: a template's protections are inherited, only ever tightened")
struct DynamicRegistrationInheritanceTests {
    /// A template whose credentials ship inside an app: code flow, PAR required, tokens bound to
    /// the client certificate, client_secret_basic.
    static func protectedTemplate(_ api: API, _ app: TestApplication) async throws -> TestOAuthClient {
        var request = OAuthClientRequest(
            clientName: "Bank App", redirectURIs: [Authorization.redirectURI],
            grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "client_secret_basic", scope: "openid email", firstParty: true,
            requirePushedAuthorizationRequests: true)
        request.dcrTemplate = true
        request.tlsClientCertificateBoundAccessTokens = true
        return try await api.createOAuthClient(app, request)
    }

    static func adminView(_ api: API, _ app: TestApplication, _ clientID: String) async throws -> Reply {
        try await api.send(
            .get, APIOperation.getOAuthClient.path(["id": app.id, "client_id": clientID]),
            bearer: TestServer.adminToken)
    }

    /// The attack (an unbound, PAR-free client from a DPoP-bound template) and its controls, over
    /// `transport`.
    static func registrationKeepsProtections(_ transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let template = try await Self.protectedTemplate(api, app)
            let token = "Bearer " + (try await api.initialAccessToken(app, uses: 10))
            let software: JSONValue = ["software_id": .string(template.id)]

            // The attack: the template's protections turned off in the request. Each is refused,
            // and nothing is stored.
            let loosened: [JSONValue] = [
                ["tls_client_certificate_bound_access_tokens": false],
                ["token_endpoint_auth_method": "none"],
                ["grant_types": ["authorization_code", "refresh_token", "client_credentials"]],
                ["scope": "openid email admin"],
            ]
            for change in loosened {
                let reply = try await api.registration(
                    .post, app, json: software.merging(change.objectValue ?? [:]), authorization: token)
                expectOAuthError(reply, .badRequest, "invalid_client_metadata")
            }
            let listed = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(listed["clients"]?.arrayValue?.count == 1, "\(listed.text)")

            // Without the members: the template's protections, PAR among them.
            let made = try await api.registration(.post, app, json: software, authorization: token)
            #expect(made.status == .created, "\(made.text)")
            #expect(made["tls_client_certificate_bound_access_tokens"]?.boolValue == true, "\(made.text)")
            #expect(made["require_pushed_authorization_requests"]?.boolValue == true, "\(made.text)")
            let id = try #require(made["client_id"]?.stringValue)
            let shown = try await Self.adminView(api, app, id)
            #expect(shown["require_pushed_authorization_requests"]?.boolValue == true, "\(shown.text)")
            #expect(shown["tls_client_certificate_bound_access_tokens"]?.boolValue == true)
            let skipped = try await api.authorize(app, Authorization().query(client: id, scope: "openid email"))
            #expect(try skipped.redirect()["error"] == "invalid_request", "PAR is required: \(skipped.status)")

            // Tightening is the client's choice: DPoP on, fewer scopes and grants.
            let tighter = try await api.registration(
                .post, app,
                json: software.merging([
                    "dpop_bound_access_tokens": true, "scope": "openid", "grant_types": ["authorization_code"],
                ]), authorization: token)
            #expect(tighter.status == .created, "\(tighter.text)")
            #expect(tighter["dpop_bound_access_tokens"]?.boolValue == true)
            #expect(tighter["scope"]?.stringValue == "openid" && tighter["grant_types"] == ["authorization_code"])
            #expect(tighter["tls_client_certificate_bound_access_tokens"]?.boolValue == true)
        }
    }

    @Test("registration from a template: a loosened protection is refused, a left-out one inherited (PAR, binding)")
    func registrationKeepsProtections() async throws {
        try await Self.registrationKeepsProtections(.router)
    }

    @Test("over HTTP: registration from a template cannot drop its binding or PAR")
    func registrationKeepsProtectionsLive() async throws {
        try await Self.registrationKeepsProtections(.live)
    }

    /// RFC 7592 `PUT` that loosens, over `transport`.
    static func updateCannotLoosen(_ transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let template = try await Self.protectedTemplate(api, app)
            let token = try await api.initialAccessToken(app)
            let made = try await api.registration(
                .post, app, json: ["software_id": .string(template.id)], authorization: "Bearer " + token)
            let id = try #require(made["client_id"]?.stringValue, "\(made.text)")
            var management = "Bearer " + (try #require(made["registration_access_token"]?.stringValue))
            let base: JSONValue = ["client_id": .string(id), "redirect_uris": [.string(Authorization.redirectURI)]]
            let loosened: [JSONValue] = [
                ["tls_client_certificate_bound_access_tokens": false],
                ["token_endpoint_auth_method": "none"],
                ["grant_types": ["client_credentials"]],
                ["scope": "openid email admin"],
            ]
            for change in loosened {
                let reply = try await api.registration(
                    .put, app, client: id, json: base.merging(change.objectValue ?? [:]), authorization: management)
                expectOAuthError(reply, .badRequest, "invalid_client_metadata")
            }
            // A refused update changes nothing, not even the token; one without the members
            // keeps the template's protections.
            let kept = try await api.registration(.put, app, client: id, json: base, authorization: management)
            #expect(kept.status == .ok, "\(kept.text)")
            #expect(kept["tls_client_certificate_bound_access_tokens"]?.boolValue == true, "\(kept.text)")
            #expect(kept["require_pushed_authorization_requests"]?.boolValue == true, "\(kept.text)")
            #expect(kept["token_endpoint_auth_method"]?.stringValue == "client_secret_basic")
            management = "Bearer " + (try #require(kept["registration_access_token"]?.stringValue))
            let shown = try await Self.adminView(api, app, id)
            #expect(shown["require_pushed_authorization_requests"]?.boolValue == true, "\(shown.text)")
            #expect(shown["tls_client_certificate_bound_access_tokens"]?.boolValue == true)
        }
    }

    @Test("RFC 7592: a PUT that loosens a template's protection is refused")
    func updateCannotLoosen() async throws {
        try await Self.updateCannotLoosen(.router)
    }

    @Test("over HTTP: a PUT that loosens a template's protection is refused")
    func updateCannotLoosenLive() async throws {
        try await Self.updateCannotLoosen(.live)
    }

    @Test("over HTTP: the template's certificate binding holds for a client its dcr token registered")
    func bindingOverMutualTLS() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest.machine(authMethod: nil) {
                $0.tlsClientCertificateBoundAccessTokens = true
                $0.clientName = "Reports app"
            }
            request.dcrTemplate = true
            let created = try await api.registerClient(app, request)
            let template = try #require(created["client_id"]?.stringValue, "\(created.text)")
            let templateSecret = try #require(created["client_secret"]?.stringValue)
            // Anyone with the template's shipped credentials and any certificate gets a dcr token.
            let certificate = try TestPKI.selfSigned("attacker", now: clock.now)
            let dcr = try await api.mtlsForm(
                .oauthToken, app, [("grant_type", "client_credentials"), ("scope", "dcr")], certificate: certificate,
                basic: (template, templateSecret))
            let dcrToken = try #require(dcr["access_token"]?.stringValue, "\(dcr.text)")

            // The attack: a client of its own without the binding.
            let unbound = try await Self.register(
                api, app, json: ["tls_client_certificate_bound_access_tokens": false], token: dcrToken,
                certificate: certificate)
            expectOAuthError(unbound, .badRequest, "invalid_client_metadata")

            // Left out, the binding is inherited: no token without a certificate, and the token names it.
            let made = try await Self.register(api, app, json: [:], token: dcrToken, certificate: certificate)
            #expect(made.status == .created, "\(made.text)")
            let id = try #require(made["client_id"]?.stringValue)
            let secret = try #require(made["client_secret"]?.stringValue)
            let grant = [("grant_type", "client_credentials"), ("scope", "api")]
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, grant, certificate: nil, basic: (id, secret)),
                .badRequest, "invalid_request")
            let bound = try await api.mtlsForm(.oauthToken, app, grant, certificate: certificate, basic: (id, secret))
            let access = try #require(bound["access_token"]?.stringValue, "\(bound.text)")
            #expect(try CompactJWT(access).claims["cnf"]?["x5t#S256"]?.stringValue == certificate.thumbprint)
        }
    }

    /// `POST <issuer>/register` with a certificate-bound `dcr` token and its certificate.
    static func register(
        _ api: API, _ app: TestApplication, json: JSONValue, token: String, certificate: Certificate
    ) async throws -> Reply {
        var headers: HTTPFields = [.authorization: "Bearer " + token, .contentType: "application/json"]
        if let name = HTTPField.Name(MutualTLSServer.header) { headers[name] = certificate.nginxHeader }
        let response = try await api.client.execute(
            uri: APIOperation.oauthRegisterClient.path(["application_id": app.id]), method: .post, headers: headers,
            body: ByteBuffer(bytes: try JSONEncoder().encode(json)))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// For each protection, a change that loosens it: the walk below fails for a tighten-only
    /// setting without one, so a new protection is tested the day it is declared.
    static let loosenings: [ClientMetadata.Member: @Sendable (inout OAuthClientRecord) -> Void] = [
        .grantTypes: { $0.grantTypes.append("client_credentials") },
        .tokenEndpointAuthMethod: { $0.authenticationMethod = .none },
        .scope: { $0.scopes.append("admin") },
        .accessTokenTTLSeconds: { $0.accessTokenTTLSeconds += 1 },
        .refreshTokenTTLSeconds: { $0.refreshTokenTTLSeconds += 1 },
        .requirePushedAuthorizationRequests: { $0.requirePushedAuthorizationRequests = false },
        .dpopBoundAccessTokens: { $0.dpopBoundAccessTokens = false },
        .attestationRequired: { $0.attestationRequired = false },
        .tlsClientCertificateBoundAccessTokens: { $0.tlsCertificateBoundAccessTokens = false },
        .requireSignedRequestObject: { $0.requireSignedRequestObject = false },
        .subjectType: { $0.pairwiseSubjects = false },
    ]

    @Test("every setting of a client is a member of its metadata, with one rule; every protection refuses loosening")
    func declarationCoversTheModel() throws {
        var template = OAuthClientSettings.newClient(applicationID: UUID(), at: Date())
        template.authenticationMethod = .privateKeyJWT
        template.grantTypes = ["authorization_code", "refresh_token"]
        template.scopes = ["openid", "email"]
        template.requirePushedAuthorizationRequests = true
        template.dpopBoundAccessTokens = true
        template.attestationRequired = true
        template.tlsCertificateBoundAccessTokens = true
        template.requireSignedRequestObject = true
        template.pairwiseSubjects = true
        // The record's stored properties: its identity and secrets, and one settings value whose
        // members ``ClientMetadataInheritance/rule(for:)`` switches over without a default.
        let properties = Mirror(reflecting: template).children.compactMap(\.label)
        #expect(
            Set(properties) == [
                "clientID", "applicationID", "createdAt", "secretHash", "sealedSecret", "registrationTokenHash",
                "settings",
            ])

        let inherited = ClientMetadataInheritance.inherit(
            template, into: OAuthClientSettings.newClient(applicationID: template.applicationID, at: Date()))
        try ClientMetadataInheritance.check(inherited, against: template)
        for member in ClientMetadata.Member.allCases {
            guard case .tightenOnly = ClientMetadataInheritance.rule(for: member) else { continue }
            let loosen = try #require(Self.loosenings[member], "no loosening for \(member.stringValue)")
            var looser = inherited
            loosen(&looser)
            #expect(looser != inherited, "\(member.stringValue): the loosening changes nothing")
            #expect {
                try ClientMetadataInheritance.check(looser, against: template)
            } throws: { error in
                (error as? OAuthError)?.description.contains(member.stringValue) == true
            }
        }
    }

    /// The rule in its layer: ``ClientRegistrationRules`` given a template and a request.
    @Test("in the layer: the rules refuse a loosened binding and inherit PAR")
    func rulesInTheLayer() throws {
        var template = OAuthClientSettings.newClient(applicationID: UUID(), at: Date())
        template.name = "Bank App"
        template.redirectURIs = [Authorization.redirectURI]
        template.grantTypes = ["authorization_code", "refresh_token"]
        template.scopes = ["openid", "email"]
        template.dcrTemplate = true
        template.firstParty = true
        template.requirePushedAuthorizationRequests = true
        template.tlsCertificateBoundAccessTokens = true
        let base = OAuthClientSettings.newClient(applicationID: template.applicationID, at: Date())

        var loosened = ClientRegistrationRequest()
        loosened.tlsClientCertificateBoundAccessTokens = false
        #expect {
            try ClientRegistrationRules.client(
                from: loosened, template: template, base: base, allowedScopes: ["openid"])
        } throws: { ($0 as? OAuthError)?.code == .invalidClientMetadata }
        let inherited = try ClientRegistrationRules.client(
            from: ClientRegistrationRequest(), template: template, base: base, allowedScopes: ["openid"])
        #expect(inherited.requirePushedAuthorizationRequests && inherited.tlsCertificateBoundAccessTokens)
        #expect(inherited.scopes == ["openid", "email"] && inherited.authenticationMethod == .clientSecretBasic)
    }
}
