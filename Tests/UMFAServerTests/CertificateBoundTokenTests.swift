import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// RFC 8705 §3 and §4: access tokens bound to the client certificate presented at the token
/// endpoint (`cnf.x5t#S256`), checked at userinfo and shown by introspection; a public client's
/// refresh tokens bound too; DPoP and a certificate together bind to both.
@Suite("OpenID Connect provider: certificate-bound access tokens (RFC 8705 §3)")
struct CertificateBoundTokenTests {
    /// A `client_secret_basic` machine client whose access tokens are certificate-bound.
    static let boundSecretClient = OAuthClientRequest.machine(authMethod: nil) {
        $0.tlsClientCertificateBoundAccessTokens = true
    }

    @Test("a bound machine client's token names its certificate; introspection returns cnf; no certificate is refused")
    func machineToken() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let request = OAuthClientRequest.machine {
                $0.tlsClientAuthSubjectDN = "CN=machine"
                $0.tlsClientCertificateBoundAccessTokens = true
            }
            let created = try await api.registerClient(app, request)
            #expect(created["tls_client_certificate_bound_access_tokens"]?.boolValue == true, "\(created.text)")
            let client = try #require(created["client_id"]?.stringValue)
            let certificate = try pki.issue(DistinguishedName { CommonName("machine") }, now: clock.now)
            let grant = [("grant_type", "client_credentials"), ("client_id", client)]
            let reply = try await api.mtlsForm(.oauthToken, app, grant, certificate: certificate)
            #expect(reply.status == .ok && reply["token_type"]?.stringValue == "Bearer", "\(reply.text)")
            let token = try #require(reply["access_token"]?.stringValue)
            #expect(try CompactJWT(token).claims["cnf"]?["x5t#S256"]?.stringValue == certificate.thumbprint)
            #expect(try CompactJWT(token).claims["cnf"]?["jkt"] == nil)

            let introspected = try await api.mtlsForm(
                .oauthIntrospect, app, [("token", token), ("client_id", client)], certificate: certificate)
            #expect(introspected["cnf"]?["x5t#S256"]?.stringValue == certificate.thumbprint, "\(introspected.text)")
            #expect(introspected["token_type"]?.stringValue == "Bearer")
        }
    }

    @Test("a client_secret_basic client with bound tokens: without a certificate, invalid_request")
    func boundNeedsCertificate() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let created = try await api.registerClient(app, Self.boundSecretClient)
            let client = try #require(created["client_id"]?.stringValue)
            let secret = try #require(created["client_secret"]?.stringValue)
            let grant = [("grant_type", "client_credentials")]
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, grant, certificate: nil, basic: (client, secret)),
                .badRequest, "invalid_request")
            // Any certificate the client holds binds its tokens (RFC 8705 §3: binding does not need
            // mutual-TLS client authentication).
            let certificate = try TestPKI.selfSigned("any", now: clock.now)
            let reply = try await api.mtlsForm(
                .oauthToken, app, grant, certificate: certificate, basic: (client, secret))
            let token = try #require(reply["access_token"]?.stringValue, "\(reply.text)")
            #expect(try CompactJWT(token).claims["cnf"]?["x5t#S256"]?.stringValue == certificate.thumbprint)
        }
    }

    @Test(
        "userinfo: a bound token works only with its certificate; another one or none is invalid_token; the refresh token is bound"
    )
    func userToken() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest(
                clientName: "App", redirectURIs: [Authorization.redirectURI],
                grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
                tokenEndpointAuthMethod: "none", scope: "openid email offline_access", firstParty: true)
            request.tlsClientCertificateBoundAccessTokens = true
            let client = try await api.createOAuthClient(app, request)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "mo@example.com", device: Device.make(),
                scope: "openid email offline_access")
            let mine = try TestPKI.selfSigned("phone", now: clock.now)
            let other = try TestPKI.selfSigned("phone", now: clock.now)
            let tokens = try await api.mtlsForm(
                .oauthToken, app,
                [
                    ("grant_type", "authorization_code"), ("code", try #require(redirect["code"])),
                    ("redirect_uri", Authorization.redirectURI), ("code_verifier", flow.verifier),
                    ("client_id", client.id),
                ], certificate: mine)
            #expect(tokens.status == .ok, "\(tokens.text)")
            let access = try #require(tokens["access_token"]?.stringValue)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)

            let good = try await api.mtlsUserinfo(app, token: access, certificate: mine)
            #expect(good.status == .ok && good["email"]?.stringValue == "mo@example.com", "\(good.text)")
            // The attack: the token stolen and presented with another certificate, or none.
            for certificate in [other, nil] {
                let refused = try await api.mtlsUserinfo(app, token: access, certificate: certificate)
                #expect(refused.status == .unauthorized, "\(refused.text)")
                #expect(refused.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            }

            // RFC 8705 §4: the public client's refresh token works only with the same certificate,
            // and is not spent by a refused attempt.
            let parameters = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client.id)]
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, parameters, certificate: other), .badRequest, "invalid_grant")
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, parameters, certificate: nil), .badRequest, "invalid_request")
            let renewed = try await api.mtlsForm(.oauthToken, app, parameters, certificate: mine)
            #expect(renewed.status == .ok, "\(renewed.text)")
            let next = try #require(renewed["access_token"]?.stringValue)
            #expect(try CompactJWT(next).claims["cnf"]?["x5t#S256"]?.stringValue == mine.thumbprint)
        }
    }

    @Test("DPoP and a certificate together: the token is bound to both, and a resource checks both")
    func dpopAndCertificate() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let created = try await api.registerClient(app, Self.boundSecretClient)
            let basic = (
                try #require(created["client_id"]?.stringValue), try #require(created["client_secret"]?.stringValue)
            )
            let certificate = try TestPKI.selfSigned("both", now: clock.now)
            let key = DPoPKey(now: { clock.now })
            let reply = try await api.mtlsForm(
                .oauthToken, app, [("grant_type", "client_credentials")], certificate: certificate,
                dpop: key.proof("POST", DPoPServerTests.tokenURL(app)), basic: basic)
            #expect(reply["token_type"]?.stringValue == "DPoP", "\(reply.text)")
            let token = try #require(reply["access_token"]?.stringValue)
            let cnf = try CompactJWT(token).claims["cnf"]
            #expect(cnf?["jkt"]?.stringValue == key.thumbprint)
            #expect(cnf?["x5t#S256"]?.stringValue == certificate.thumbprint)
        }
    }

    @Test("discovery lists the mutual-TLS methods and certificate-bound tokens")
    func discovery() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let metadata = try await api.send(.get, APIOperation.oauthServerMetadata.path(["application_id": app.id]))
            let methods = metadata["token_endpoint_auth_methods_supported"]?.arrayValue?.compactMap(\.stringValue)
            #expect(
                methods?.contains("tls_client_auth") == true && methods?.contains("self_signed_tls_client_auth") == true
            )
            #expect(metadata["tls_client_certificate_bound_access_tokens"]?.boolValue == true)
        }
    }
}
