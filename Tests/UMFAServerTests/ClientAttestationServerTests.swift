import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAAttestationTestSupport
import UMFAContract
import UMFAServer
import UMFATestSupport
import UMFAWebAuthn

/// docs/contract.md §6: the API-flow token (`client_credentials`, scope `urn:umfa:api-flow`) for public
/// clients, with a client attestation (App Attest, Android key attestation) for a challenge of
/// the issuer when the client requires one.
@Suite("OpenID Connect provider: client attestation for the API-flow token")
struct ClientAttestationServerTests {
    static let scope = "urn:umfa:api-flow"
    static let appleType = "urn:umfa:client-attestation:apple-app-attest"
    static let androidType = "urn:umfa:client-attestation:android-key"
    static let appID = "ABCDE12345.com.example.shop"
    static let digest = Array(SHA256.hash(data: Array("shop signing certificate".utf8)))

    /// A server trusting `ca`, an application listing the shop's apps, and a public client.
    func withClient(
        _ ca: AttestationTestCA, attestationRequired: Bool = true,
        _ body: @Sendable (API, TestApplication, String) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.remove() }
        var configuration = server.configuration
        configuration.attestationAnchors = ca.anchors
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        let (clock, directory) = (server.clock, server.directory)
        try await app.exercise(.router) { client in
            let api = API(client: client, clock: clock, directory: directory)
            let application = try await api.createApplication(policy: "grant")
            let fingerprint = Self.digest.map { String(format: "%02X", $0) }.joined(separator: ":")
            let settings = ApplicationSettingsRequest(
                ApplicationSettings(
                    appleAppIDs: [Self.appID],
                    androidApps: [AndroidApp(packageName: "com.example.shop", sha256CertFingerprints: [fingerprint])]))
            #expect(try await TokenSigningAlgorithmTests.patch(api, application, settings).status == .ok)
            var request = OAuthClientRequest(
                clientName: "Shop app", redirectURIs: ["com.example.shop:/callback"], tokenEndpointAuthMethod: "none",
                scope: "openid \(Self.scope)")
            request.attestationRequired = attestationRequired
            let made = try await api.createOAuthClient(application, request)
            try await body(api, application, made.id)
        }
    }

    func challenge(_ api: API, _ app: TestApplication) async throws -> String {
        let reply = try await api.send(
            .post, APIOperation.oauthAttestationChallenge.path(["application_id": app.id]))
        guard reply.status == .created, let challenge = reply["challenge"]?.stringValue else {
            throw TestFailure("attestation-challenge failed: \(reply.status) \(reply.text)")
        }
        #expect(reply["expires_in"]?.intValue == 300)
        return challenge
    }

    func token(
        _ api: API, _ app: TestApplication, client: String, type: String, assertion: String, challenge: String,
        scope: String = scope, grant: String = "client_credentials"
    ) async throws -> Reply {
        try await api.form(
            .oauthToken, app,
            [
                ("grant_type", grant), ("client_id", client), ("scope", scope), ("client_assertion_type", type),
                ("client_assertion", assertion), ("attestation_challenge", challenge),
            ])
    }

    @Test("an App Attest attestation for the issuer's challenge gets the flow token; the challenge works once")
    func appAttest() async throws {
        let ca = try AttestationTestCA()
        try await withClient(ca) { api, app, client in
            let challenge = try await challenge(api, app)
            let object = try ca.appAttest(appID: Self.appID, challenge: challenge)
            let reply = try await token(
                api, app, client: client, type: Self.appleType, assertion: object, challenge: challenge)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply["scope"]?.stringValue == Self.scope)
            let claims = try CompactJWT(try #require(reply["access_token"]?.stringValue)).claims
            #expect(claims["client_id"]?.stringValue == client && claims["scope"]?.stringValue == Self.scope)
            // The same challenge again: refused.
            let again = try await token(
                api, app, client: client, type: Self.appleType, assertion: object, challenge: challenge)
            expectOAuthError(again, .unauthorized, "invalid_client")
            #expect(again["error_description"]?.stringValue?.contains("challenge") == true)
        }
    }

    @Test("an Android key attestation of the listed package and signing certificate gets the flow token")
    func android() async throws {
        let ca = try AttestationTestCA()
        try await withClient(ca) { api, app, client in
            let challenge = try await challenge(api, app)
            let chain = try ca.androidChain(packageName: "com.example.shop", digest: Self.digest, challenge: challenge)
            let reply = try await token(
                api, app, client: client, type: Self.androidType, assertion: chain, challenge: challenge)
            #expect(reply.status == .ok, "\(reply.text)")
            let other = try await self.challenge(api, app)
            let foreign = try ca.androidChain(packageName: "com.example.evil", digest: Self.digest, challenge: other)
            let refused = try await token(
                api, app, client: client, type: Self.androidType, assertion: foreign, challenge: other)
            expectOAuthError(refused, .unauthorized, "invalid_client")
            #expect(refused["error_description"]?.stringValue?.contains("not one this application accepts") == true)
        }
    }

    @Test("refused: no attestation when required, another app, another challenge, an untrusted CA, other grants")
    func refusals() async throws {
        let ca = try AttestationTestCA()
        try await withClient(ca) { api, app, client in
            // attestation_required: the client id alone is not enough.
            let bare = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("client_id", client), ("scope", Self.scope)])
            expectOAuthError(bare, .unauthorized, "invalid_client")
            let challenge = try await challenge(api, app)
            let cases: [(String, String, String)] = [
                (try ca.appAttest(appID: "ZZZZZ99999.com.example.other", challenge: challenge), "rpIdHash", challenge),
                (
                    try ca.appAttest(appID: Self.appID, challenge: "umfa_ac_other"), "nonce",
                    try await self.challenge(api, app)
                ),
                (
                    try AttestationTestCA().appAttest(appID: Self.appID, challenge: challenge), "chain",
                    try await self.challenge(api, app)
                ),
                (try ca.appAttest(appID: Self.appID, challenge: challenge), "challenge", "umfa_ac_never_issued"),
            ]
            for (assertion, reason, used) in cases {
                let reply = try await token(
                    api, app, client: client, type: Self.appleType, assertion: assertion, challenge: used)
                expectOAuthError(reply, .unauthorized, "invalid_client")
                #expect(reply["error_description"]?.stringValue?.contains(reason) == true, "\(reason): \(reply.text)")
            }
            // An attestation is for the flow token only.
            let fresh = try await self.challenge(api, app)
            expectOAuthError(
                try await token(
                    api, app, client: client, type: Self.appleType,
                    assertion: try ca.appAttest(appID: Self.appID, challenge: fresh), challenge: fresh, scope: "openid"),
                .badRequest, "invalid_request")
            expectOAuthError(
                try await token(
                    api, app, client: client, type: "urn:umfa:client-attestation:other", assertion: "x",
                    challenge: fresh),
                .unauthorized, "invalid_client")
        }
    }

    @Test("a public client without attestation_required gets the flow token by its id; confidential ones by secret")
    func withoutAttestation() async throws {
        let ca = try AttestationTestCA()
        try await withClient(ca, attestationRequired: false) { api, app, client in
            let reply = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials"), ("client_id", client), ("scope", Self.scope)])
            #expect(reply.status == .ok && reply["scope"]?.stringValue == Self.scope, "\(reply.text)")
            // Only that scope: a public client gets nothing else by client_credentials.
            expectOAuthError(
                try await api.form(
                    .oauthToken, app,
                    [("grant_type", "client_credentials"), ("client_id", client), ("scope", "openid")]),
                .badRequest, "unauthorized_client")
            // attestation_required is for public clients only.
            var confidential = OAuthClientRequest(
                clientName: "x", grantTypes: ["client_credentials"], responseTypes: [], scope: Self.scope)
            confidential.attestationRequired = true
            let refused = try await api.send(
                .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(confidential),
                bearer: TestServer.adminToken)
            #expect(refused.status == .badRequest && refused.text.contains("attestation_required"))
        }
    }
}
