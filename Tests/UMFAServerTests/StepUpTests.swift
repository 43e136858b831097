import Foundation
import Hummingbird
import Testing
import UMFAAttestationTestSupport
import UMFAContract
import UMFAEncoding
import UMFATestSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/oidc-provider.md, "Authentication context and step-up": UMFA's `acr` levels in discovery
/// and in every token, `acr_values` as a preference, an essential `acr` of the `claims` parameter
/// as a requirement (a session below it is stepped up; a sign-in below it gets
/// `unmet_authentication_requirements`, never a code), the `claims` parameter's standard claims,
/// and RFC 9470's challenge at UMFA's own resources.
@Suite("OpenID Connect provider: authentication context and step-up")
struct StepUpTests {
    static let presence = "urn:umfa:acr:presence"
    static let passkey = "urn:umfa:acr:passkey"
    static let attested = "urn:umfa:acr:attested"

    /// `claims` with an essential `acr` in the ID token.
    static func essential(_ values: [String]) -> String {
        let list = values.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"id_token":{"acr":{"essential":true,"values":[\#(list)]}}}"#
    }

    /// The claims of a JWT, unverified (the tests that verify signatures are elsewhere).
    static func claims(_ token: String?) throws -> JSONValue {
        try CompactJWT(try #require(token)).claims
    }

    /// The interaction of the hosted sign-up page a request for `scope` with `extra` opens.
    static func signUpPage(
        _ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ flow: Authorization,
        scope: String = "openid", extra: [String: String?]
    ) async throws -> String {
        let page = try await api.authorize(
            app, flow.query(client: client.id, scope: scope, extra: extra.merging(["prompt": "create"]) { $1 }))
        return try API.page(page).interaction
    }

    @Test("discovery lists the levels from the weakest, the claims parameter and the acr claim")
    func discovery() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let metadata = try await api.send(
                .get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(
                metadata["acr_values_supported"]?.arrayValue?.compactMap(\.stringValue) == [
                    Self.presence, Self.passkey, Self.attested,
                ])
            #expect(metadata["claims_parameter_supported"]?.boolValue == true)
            #expect(metadata["claims_supported"]?.arrayValue?.contains("acr") == true)
        }
    }

    @Test("a verified passkey reaches passkey: acr in the ID token, the access token, a refresh and introspection")
    func levelInTokens() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let client = try await api.codeClient(app)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "ann@example.com", device: Device.make(),
                extra: ["acr_values": "urn:example:unknown \(Self.passkey)"])
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            #expect(tokens.status == .ok, "\(tokens.text)")
            let idToken = try Self.claims(tokens["id_token"]?.stringValue)
            #expect(idToken["acr"]?.stringValue == Self.passkey)
            #expect(idToken["amr"]?.arrayValue?.contains("user") == true)
            let accessToken = try #require(tokens["access_token"]?.stringValue)
            #expect(try Self.claims(accessToken)["acr"]?.stringValue == Self.passkey)

            let refreshed = try await api.refresh(
                app, client: client, token: try #require(tokens["refresh_token"]?.stringValue))
            #expect(try Self.claims(refreshed["id_token"]?.stringValue)["acr"]?.stringValue == Self.passkey)

            let introspected = try await api.form(
                .oauthIntrospect, app, [("token", accessToken)], basic: (client.id, try #require(client.secret)))
            #expect(introspected["active"]?.boolValue == true, "\(introspected.text)")
            #expect(introspected["acr"]?.stringValue == Self.passkey)
            #expect(introspected["auth_time"]?.intValue == idToken["auth_time"]?.intValue)
        }
    }

    @Test("an essential acr the passkey does not reach ends with unmet_authentication_requirements, never a code")
    func unmet() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let client = try await api.codeClient(app)
            let flow = Authorization()
            let interaction = try await Self.signUpPage(
                api, app, client, flow, extra: ["claims": Self.essential([Self.attested])])
            let created = try await api.createAccount(
                app, interaction: interaction, email: "bob@example.com", device: Device.make())
            // Before any consent is asked (or remembered) for a request that cannot be answered.
            #expect(created["next"]?.stringValue == "redirect", "\(created.text)")
            let redirect = try created.redirectTo()
            #expect(redirect["error"] == "unmet_authentication_requirements", "\(created.text)")
            #expect(redirect["code"] == nil)
            #expect(redirect["state"] == flow.state)

            // Values none of which UMFA offers can never be met: refused before any page.
            let unknown = try await api.authorize(
                app, flow.query(client: client.id, scope: "openid", extra: ["claims": Self.essential(["urn:x:gold"])]))
            let refused = try unknown.redirect()
            #expect(refused["error"] == "unmet_authentication_requirements")
            #expect(refused["code"] == nil)
        }
    }

    @Test("step-up: a session below an essential acr shows the sign-in page; prompt=none gets login_required")
    func sessionIsSteppedUp() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let client = try await api.codeClient(app, firstParty: true)
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "cat@example.com", device: Device.make())

            // The session's passkey level answers a request that needs no more, without a page.
            let flow = Authorization()
            let again = try await api.authorize(
                app,
                flow.query(client: client.id, scope: "openid", extra: ["claims": Self.essential([Self.passkey])]),
                cookie: cookie)
            #expect(try again.redirect()["code"] != nil, "\(again.status) \(again.text.prefix(200))")

            let stepUp = try await api.authorize(
                app,
                flow.query(client: client.id, scope: "openid", extra: ["claims": Self.essential([Self.attested])]),
                cookie: cookie)
            #expect(stepUp.status == .ok, "the person is asked to sign in again")
            #expect(try API.page(stepUp).view == "sign-in")

            let silent = try await api.authorize(
                app,
                flow.query(
                    client: client.id, scope: "openid",
                    extra: ["claims": Self.essential([Self.attested]), "prompt": "none"]),
                cookie: cookie)
            #expect(try silent.redirect()["error"] == "login_required")

            // A preference is answered with the level reached when no page may be shown.
            let preferred = try await api.authorize(
                app,
                flow.query(client: client.id, scope: "openid", extra: ["acr_values": Self.attested, "prompt": "none"]),
                cookie: cookie)
            #expect(try preferred.redirect()["code"] != nil)
        }
    }

    @Test("a device-bound passkey with a trusted attestation reaches attested and meets an essential attested acr")
    func attestedLevel() async throws {
        let ca = try AttestationTestCA()
        var server = TestServer()
        server.adjust = { $0.attestationAnchors = ca.packedAnchors }
        defer { server.remove() }
        try await server.run { api in
            let created = try await api.post(
                APIOperation.createApplication.path,
                .object([
                    "name": "Bank", "rp_id": .string(TestApplication.rpID),
                    "origins": .array([.string(TestApplication.origin)]), "enrollment_policy": "grant",
                    "attestation": "direct", "attestation_policy": "trusted",
                ]), bearer: TestServer.adminToken)
            let app = TestApplication(
                id: try #require(created["application_id"]?.stringValue),
                apiKey: try #require(created["api_key"]?.stringValue), settings: try #require(created.json))
            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let interaction = try await Self.signUpPage(
                api, app, client, flow, extra: ["claims": Self.essential([Self.attested])])
            let options = try await api.interaction(
                .interactionCreateAccountOptions, app,
                InteractionCreateAccountRequest(interaction: interaction, email: "dan@example.com"))
            let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
            #expect(creation.authenticatorSelection?.userVerification == .required, "step-up asks for the PIN")
            var credential = try Device.make().create(creation, userVerified: true)
            let object = try ca.packedFull(
                attestationObject: credential.response.attestationObject.bytes,
                clientDataJSON: credential.response.clientDataJSON.bytes)
            credential.response.attestationObject = Base64URLBytes(object)
            credential.response.authenticatorData = Base64URLBytes(
                try AttestationObject(bytes: object).authenticatorData.rawBytes)
            let verified = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: interaction, credential: credential))
            let redirect = try verified.redirectTo()
            let code = try #require(redirect["code"], "\(verified.text)")
            let tokens = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
            #expect(try Self.claims(tokens["id_token"]?.stringValue)["acr"]?.stringValue == Self.attested)

            // An essential acr is answered with one of its values (Core §5.5.1.1): the highest
            // the attested session reaches.
            let cookie = String(try #require(verified.headers[.setCookie]).split(separator: ";")[0])
            let second = Authorization()
            let again = try await api.authorize(
                app,
                second.query(client: client.id, scope: "openid", extra: ["claims": Self.essential([Self.passkey])]),
                cookie: cookie)
            let reused = try await api.redeem(
                app, client: client, code: try #require(try again.redirect()["code"]), verifier: second.verifier)
            #expect(try Self.claims(reused["id_token"]?.stringValue)["acr"]?.stringValue == Self.passkey)
        }
    }

    @Test("claims: a claim asked for alone comes with its scope; a malformed claims value is invalid_request")
    func claimsParameter() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let client = try await api.codeClient(app)
            let flow = Authorization()
            let interaction = try await Self.signUpPage(
                api, app, client, flow, extra: ["claims": #"{"id_token":{"email":{"essential":true}},"other":1}"#])
            let created = try await api.createAccount(
                app, interaction: interaction, email: "eve@example.com", device: Device.make())
            #expect(created["scopes"]?.arrayValue?.compactMap(\.stringValue) == ["openid", "email"])
            let consented = try await api.consent(app, interaction: interaction, allow: true)
            let tokens = try await api.redeem(
                app, client: client, code: try #require(try consented.redirectTo()["code"]), verifier: flow.verifier)
            #expect(try Self.claims(tokens["id_token"]?.stringValue)["email"]?.stringValue == "eve@example.com")

            // A claim's value has the claim's own type (§5.5.1): a boolean for email_verified.
            let typed = try await api.authorize(
                app,
                flow.query(
                    client: client.id, scope: "openid",
                    extra: ["claims": #"{"userinfo":{"email_verified":{"essential":true,"value":true}}}"#]))
            #expect(typed.status == .ok, "\(typed.text.prefix(200))")

            for bad in [
                #"{"id_token":[]}"#, "not json", #"{"id_token":{"acr":{"essential":"yes"}}}"#,
                #"{"id_token":{"acr":{"values":[1]}}}"#,
            ] {
                let reply = try await api.authorize(
                    app, flow.query(client: client.id, scope: "openid", extra: ["claims": bad]))
                #expect(try reply.redirect()["error"] == "invalid_request", "\(bad)")
            }
            let noOpenID = try await api.authorize(
                app, flow.query(client: client.id, scope: "email", extra: ["claims": #"{"userinfo":{"email":null}}"#]))
            #expect(try noOpenID.redirect()["error"] == "invalid_request")
        }
    }

    @Test("RFC 9470: a token from a sign-in without user verification is challenged with acr_values at /me")
    func resourceChallenge() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(userVerification: "discouraged")
            let client = try await api.codeClient(
                app, firstParty: true, scope: "openid email offline_access umfa:passkeys")
            let flow = Authorization()
            let interaction = try await Self.signUpPage(
                api, app, client, flow, scope: "openid umfa:passkeys", extra: [:])
            let options = try await api.interaction(
                .interactionCreateAccountOptions, app,
                InteractionCreateAccountRequest(interaction: interaction, email: "fay@example.com"))
            let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
            let credential = try Device.make().create(creation, userVerified: false)
            let verified = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: interaction, credential: credential))
            let tokens = try await api.redeem(
                app, client: client, code: try #require(try verified.redirectTo()["code"]), verifier: flow.verifier)
            let token = try #require(tokens["access_token"]?.stringValue)
            #expect(try Self.claims(token)["acr"]?.stringValue == Self.presence)

            let refused = try await PasskeyAccessTokenTests.send(
                api, .get, PasskeyAccessTokenTests.list, authorization: "Bearer \(token)")
            #expect(refused.status == .unauthorized)
            let challenge = try #require(refused.headers[.wwwAuthenticate])
            #expect(challenge.contains(#"error="insufficient_user_authentication""#), "\(challenge)")
            #expect(challenge.contains(#"acr_values="\#(Self.passkey)""#), "\(challenge)")
            #expect(challenge.contains("max_age="), "\(challenge)")
        }
    }
}
