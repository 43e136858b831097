import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// RFC 8705 §6.5: behind a TLS-terminating proxy, the client certificate comes in a header the
/// proxy sets; it is believed only from the configured proxy addresses, and a header that is not
/// a certificate counts as none.
@Suite("Mutual TLS behind a proxy: the client certificate header (RFC 8705 §6.5)")
struct ClientCertificateHeaderTests {
    static func machine(_ api: API, _ app: TestApplication) async throws -> String {
        let request = OAuthClientRequest.machine { $0.tlsClientAuthSubjectDN = "CN=machine" }
        return try #require(try await api.registerClient(app, request)["client_id"]?.stringValue)
    }

    @Test("the attack: the header from a peer that is not a trusted proxy is ignored")
    func untrustedPeer() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        // Only 192.0.2.1 may set the header; the test client connects from loopback.
        try await MutualTLSServer.with(pki: pki, trusted: ["192.0.2.1", "10.0.0.0/8"], clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await Self.machine(api, app)
            let certificate = try pki.issue(DistinguishedName { CommonName("machine") }, now: clock.now)
            let refused = try await api.mtlsForm(
                .oauthToken, app, [("grant_type", "client_credentials"), ("client_id", client)],
                certificate: certificate)
            expectOAuthError(refused, .unauthorized, "invalid_client")
            #expect(
                refused["error_description"]?.stringValue?.contains("none was presented") == true, "\(refused.text)")
        }
    }

    @Test("the attack: a client's own header before the one a proxy appended is not believed (one field only)")
    func appendedHeader() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await Self.machine(api, app)
            let forged = try pki.issue(DistinguishedName { CommonName("machine") }, now: clock.now)
            let own = try pki.issue(DistinguishedName { CommonName("attacker") }, now: clock.now)
            let grant = [("grant_type", "client_credentials"), ("client_id", client)]
            // The client sends the header itself; an appending proxy adds the real one after it.
            let refused = try await api.mtlsForm(
                .oauthToken, app, grant, certificate: nil, headerValues: [forged.nginxHeader, own.nginxHeader])
            expectOAuthError(refused, .unauthorized, "invalid_client")
            // One field, as a replacing proxy sends it: believed.
            let accepted = try await api.mtlsForm(.oauthToken, app, grant, certificate: forged)
            #expect(accepted.status == .ok, "\(accepted.text)")
        }
    }

    @Test("the forms proxies use all carry the certificate; a header that is not one is no certificate, never a 500")
    func headerForms() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await Self.machine(api, app)
            let certificate = try pki.issue(DistinguishedName { CommonName("machine") }, now: clock.now)
            let der = Data(certificate.der)
            let forms = [
                certificate.nginxHeader,  // nginx $ssl_client_escaped_cert
                certificate.pem.replacingOccurrences(of: "\n", with: " "),  // Apache, one line
                der.base64EncodedString(),  // base64 DER
                Base64URL.encode(certificate.der),  // base64url DER
            ]
            let grant = [("grant_type", "client_credentials"), ("client_id", client)]
            for form in forms {
                let reply = try await api.mtlsForm(.oauthToken, app, grant, certificate: nil, headerValue: form)
                #expect(reply.status == .ok, "\(form.prefix(40)): \(reply.text)")
            }
            for junk in [
                "not a certificate", "%ZZ", Data("hello".utf8).base64EncodedString(),
                String(repeating: "A", count: 40_000),
            ] {
                let reply = try await api.mtlsForm(.oauthToken, app, grant, certificate: nil, headerValue: junk)
                expectOAuthError(reply, .unauthorized, "invalid_client")
            }
        }
    }

    @Test("settings: the header needs trusted proxies; addresses and CIDR ranges parse; the CA file loads")
    func settings() throws {
        #expect(throws: ConfigurationError.self) {
            try MutualTLSSettings.from(SettingsReader(environment: ["UMFA_TLS_CLIENT_CERT_HEADER": "X-Client-Cert"]))
        }
        #expect(throws: ConfigurationError.self) {
            try MutualTLSSettings.from(
                SettingsReader(environment: [
                    "UMFA_TLS_CLIENT_CERT_HEADER": "X-Client-Cert",
                    "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES": "10.0.0.0/33",
                ]))
        }
        let settings = try MutualTLSSettings.from(
            SettingsReader(environment: [
                "UMFA_TLS_CLIENT_CERT_HEADER": "X-Client-Cert",
                "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES": "10.0.0.0/8, 2001:db8::/32 192.0.2.1",
            ]))
        #expect(settings.certificateHeader == "X-Client-Cert")
        let contains = { (address: String) in settings.trustedProxies.contains { $0.contains(address) } }
        #expect(contains("10.200.3.4") && contains("2001:db8:1::5") && contains("192.0.2.1"))
        #expect(contains("::ffff:10.1.1.1"), "an IPv4-mapped peer of a dual-stack listener")
        #expect(!contains("11.0.0.1") && !contains("192.0.2.2") && !contains("2001:db9::1") && !contains("unknown"))

        let pki = try TestPKI(now: Date())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-anchors-\(UUID()).pem")
        defer { try? FileManager.default.removeItem(at: file) }
        try (pki.ca.pem + "\n" + pki.ca.pem).write(to: file, atomically: true, encoding: .utf8)
        let anchors = try MutualTLSSettings.from(SettingsReader(environment: ["UMFA_MTLS_TRUST_ANCHORS": file.path]))
        #expect(anchors.trustAnchors.count == 2)
        try "no certificate".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) {
            try MutualTLSSettings.from(SettingsReader(environment: ["UMFA_MTLS_TRUST_ANCHORS": file.path]))
        }
    }

    @Test("RFC 4514 subject DNs compare by meaning, not by spelling")
    func distinguishedNames() {
        let normalized = DistinguishedNameText.normalized
        #expect(normalized("CN=Billing Service,O=Example Corp") == normalized("cn=billing  service , o=EXAMPLE Corp"))
        #expect(normalized("CN=a\\,b,O=x") == normalized("2.5.4.3=a\\2Cb,organizationName=x"))
        #expect(normalized("CN=a+UID=7,O=x") == normalized("UID=7+CN=a,O=x"))
        #expect(normalized("CN=a,O=x") != normalized("O=x,CN=a"), "RDN order matters")
        #expect(normalized("CN=a,O=x") != normalized("CN=a,O=x,C=US"))
        #expect(normalized("CN") == nil && normalized("CN=a\\") == nil && normalized("") == nil)
    }
}
