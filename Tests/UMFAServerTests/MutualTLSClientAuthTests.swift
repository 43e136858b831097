import Foundation
import SwiftASN1
import Testing
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// RFC 8705 §2: mutual-TLS client authentication with real certificates, presented through a
/// trusted proxy's header: `tls_client_auth` by subject DN or SAN (§2.1) and
/// `self_signed_tls_client_auth` by the registered certificate (§2.2), at the token,
/// introspection, revocation and PAR endpoints.
@Suite("OpenID Connect provider: mutual-TLS client authentication (RFC 8705 §2)")
struct MutualTLSClientAuthTests {
    static let grant = [("grant_type", "client_credentials")]

    @Test(
        "tls_client_auth by subject DN: the CA's certificate with that DN passes; a wrong DN, another CA or none is invalid_client"
    )
    func subjectDN() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            // Registered in another spelling: types in lower case, spaces after commas.
            let created = try await api.registerClient(
                app, .machine { $0.tlsClientAuthSubjectDN = "cn=Billing Service, o=Example Corp" })
            #expect(created.status == .created, "\(created.text)")
            #expect(created["client_secret"] == nil, "a certificate client gets no secret")
            #expect(created["tls_client_auth_subject_dn"]?.stringValue == "cn=Billing Service, o=Example Corp")
            let client = try #require(created["client_id"]?.stringValue)
            let good = try pki.issue(
                DistinguishedName {
                    OrganizationName("Example Corp")
                    CommonName("Billing Service")
                }, now: clock.now)
            let reply = try await api.mtlsForm(
                .oauthToken, app, Self.grant + [("client_id", client)], certificate: good)
            #expect(reply.status == .ok && reply["access_token"] != nil, "\(reply.text)")

            // The attacks: the same CA's certificate for another subject; the right subject from
            // a CA the server does not trust; no certificate; a secret in place of it.
            let wrongDN = try pki.issue(
                DistinguishedName {
                    OrganizationName("Example Corp")
                    CommonName("Billing Servic")
                }, now: clock.now)
            let otherCA = try TestPKI(name: "Rogue CA", now: clock.now).issue(
                DistinguishedName {
                    OrganizationName("Example Corp")
                    CommonName("Billing Service")
                }, now: clock.now)
            for (certificate, problem) in [(wrongDN, "wrong subject DN"), (otherCA, "untrusted CA")] {
                let refused = try await api.mtlsForm(
                    .oauthToken, app, Self.grant + [("client_id", client)], certificate: certificate)
                expectOAuthError(refused, .unauthorized, "invalid_client")
                #expect(refused["access_token"] == nil, "\(problem)")
            }
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, Self.grant + [("client_id", client)], certificate: nil),
                .unauthorized, "invalid_client")
            expectOAuthError(
                try await api.mtlsForm(
                    .oauthToken, app, Self.grant + [("client_id", client), ("client_secret", "guess")],
                    certificate: good), .unauthorized, "invalid_client")
            // A certificate whose extended key usage excludes client authentication.
            let serverOnly = try pki.issue(
                DistinguishedName {
                    OrganizationName("Example Corp")
                    CommonName("Billing Service")
                }, usage: [.serverAuth], now: clock.now)
            expectOAuthError(
                try await api.mtlsForm(
                    .oauthToken, app, Self.grant + [("client_id", client)], certificate: serverOnly),
                .unauthorized, "invalid_client")
        }
    }

    @Test("tls_client_auth by SAN: DNS, URI, IP (in binary) and email each match only their own value")
    func subjectAlternativeNames() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let certificate = try pki.issue(
                DistinguishedName { CommonName("device 7") },
                names: [
                    .dnsName("billing.example.com"), .uniformResourceIdentifier("spiffe://example.com/billing"),
                    .ipAddress(ASN1OctetString(contentBytes: [192, 0, 2, 7])), .rfc822Name("ops@example.com"),
                ], now: clock.now)
            let cases: [(WritableKeyPath<OAuthClientRequest, String?>, String, String)] = [
                (\.tlsClientAuthSANDNS, "BILLING.example.com", "billing2.example.com"),
                (\.tlsClientAuthSANURI, "spiffe://example.com/billing", "spiffe://example.com/other"),
                (\.tlsClientAuthSANIP, "::ffff:192.0.2.7", "192.0.2.8"),
                (\.tlsClientAuthSANEmail, "ops@EXAMPLE.com", "Ops@example.com"),
            ]
            for (member, matching, other) in cases {
                for (value, passes) in [(matching, true), (other, false)] {
                    let created = try await api.registerClient(app, .machine { $0[keyPath: member] = value })
                    let client = try #require(created["client_id"]?.stringValue, "\(created.text)")
                    let reply = try await api.mtlsForm(
                        .oauthToken, app, Self.grant + [("client_id", client)], certificate: certificate)
                    #expect((reply.status == .ok) == passes, "\(value): \(reply.text)")
                }
            }
        }
    }

    @Test(
        "self_signed_tls_client_auth: the registered certificate passes; another self-signed one with the same name is refused"
    )
    func selfSigned() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let mine = try TestPKI.selfSigned("kiosk", now: clock.now)
            let impostor = try TestPKI.selfSigned("kiosk", now: clock.now)
            var request = OAuthClientRequest.machine { $0.tokenEndpointAuthMethod = "self_signed_tls_client_auth" }
            request.jwks = mine.jwks
            let created = try await api.registerClient(app, request)
            #expect(created.status == .created, "\(created.text)")
            let client = try #require(created["client_id"]?.stringValue)
            let reply = try await api.mtlsForm(
                .oauthToken, app, Self.grant + [("client_id", client)], certificate: mine)
            #expect(reply.status == .ok, "\(reply.text)")
            let token = try #require(reply["access_token"]?.stringValue)
            expectOAuthError(
                try await api.mtlsForm(.oauthToken, app, Self.grant + [("client_id", client)], certificate: impostor),
                .unauthorized, "invalid_client")

            // Introspection and revocation take the same authentication.
            let introspected = try await api.mtlsForm(
                .oauthIntrospect, app, [("token", token), ("client_id", client)], certificate: mine)
            #expect(introspected["active"]?.boolValue == true, "\(introspected.text)")
            expectOAuthError(
                try await api.mtlsForm(
                    .oauthIntrospect, app, [("token", token), ("client_id", client)], certificate: impostor),
                .unauthorized, "invalid_client")
            let revoked = try await api.mtlsForm(
                .oauthRevoke, app, [("token", token), ("client_id", client)], certificate: mine)
            #expect(revoked.status == .ok, "\(revoked.text)")
            let after = try await api.mtlsForm(
                .oauthIntrospect, app, [("token", token), ("client_id", client)], certificate: mine)
            #expect(after["active"]?.boolValue == false)
        }
    }

    @Test("PAR authenticates a tls_client_auth client by its certificate")
    func pushedAuthorization() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            var request = OAuthClientRequest(
                clientName: "Web", redirectURIs: [Authorization.redirectURI], grantTypes: ["authorization_code"],
                responseTypes: ["code"], tokenEndpointAuthMethod: "tls_client_auth", scope: "openid")
            request.tlsClientAuthSANDNS = "web.example.com"
            let client = try #require(try await api.registerClient(app, request)["client_id"]?.stringValue)
            let certificate = try pki.issue(
                DistinguishedName { CommonName("web") }, names: [.dnsName("web.example.com")], now: clock.now)
            let flow = Authorization()
            let parameters = [
                ("client_id", client), ("response_type", "code"), ("redirect_uri", Authorization.redirectURI),
                ("scope", "openid"), ("code_challenge", flow.challenge), ("code_challenge_method", "S256"),
            ]
            let pushed = try await api.mtlsForm(
                .oauthPushedAuthorizationRequest, app, parameters, certificate: certificate)
            #expect(pushed.status == .created && pushed["request_uri"] != nil, "\(pushed.text)")
            let stranger = try pki.issue(
                DistinguishedName { CommonName("web") }, names: [.dnsName("evil.example.com")], now: clock.now)
            expectOAuthError(
                try await api.mtlsForm(.oauthPushedAuthorizationRequest, app, parameters, certificate: stranger),
                .unauthorized, "invalid_client")
        }
    }
}
