import Foundation
import SwiftASN1
import Testing
import UMFAContract
import UMFAStorage
import X509

@testable import UMFAServer

/// `tls_client_auth` (RFC 8705 §2.1) takes only a certificate an end entity may
/// sign with (RFC 5280 §4.2.1.3, §4.2.1.9, §4.2.1.12): not a CA, `digitalSignature` when key
/// usage is stated, `clientAuth` (or any) when extended key usage is stated.
@Suite("OpenID Connect provider: what a tls_client_auth certificate may be (RFC 5280)")
struct ClientCertificateUsageTests {
    static let subject = "CN=Billing Service,O=Example Corp"

    static func name() throws -> DistinguishedName {
        try DistinguishedName {
            OrganizationName("Example Corp")
            CommonName("Billing Service")
        }
    }

    /// The certificates an attacker or a careless CA might hand a client, each refused.
    static func refused(_ pki: TestPKI, now: Date) throws -> [(String, Certificate)] {
        [
            (
                "key usage without digitalSignature",
                try pki.issue(name(), keyUsage: KeyUsage(keyAgreement: true), now: now)
            ),
            (
                "key usage for certificate signing only",
                try pki.issue(name(), keyUsage: KeyUsage(keyCertSign: true), now: now)
            ),
            ("cA TRUE", try pki.issue(name(), certificateAuthority: true, now: now)),
            (
                "cA TRUE with digitalSignature",
                try pki.issue(
                    name(), keyUsage: KeyUsage(digitalSignature: true, keyCertSign: true), certificateAuthority: true,
                    now: now)
            ),
            ("extended key usage serverAuth only", try pki.issue(name(), usage: [.serverAuth], now: now)),
        ]
    }

    /// End-entity certificates that may sign for TLS client authentication, each accepted.
    static func accepted(_ pki: TestPKI, now: Date) throws -> [(String, Certificate)] {
        [
            ("no key usage", try pki.issue(name(), now: now)),
            ("digitalSignature", try pki.issue(name(), keyUsage: KeyUsage(digitalSignature: true), now: now)),
            (
                "digitalSignature and keyAgreement",
                try pki.issue(name(), keyUsage: KeyUsage(digitalSignature: true, keyAgreement: true), now: now)
            ),
            ("no extended key usage", try pki.issue(name(), usage: [], now: now)),
            ("anyExtendedKeyUsage", try pki.issue(name(), usage: [.any], now: now)),
        ]
    }

    static func client(subject: String = subject, now: Date) -> OAuthClientRecord {
        var record = OAuthClientRecord(clientID: "billing", applicationID: UUID(), createdAt: now)
        record.name = "Billing"
        record.grantTypes = ["client_credentials"]
        record.responseTypes = []
        record.authenticationMethod = .tlsClientAuth
        record.scopes = ["api"]
        record.accessTokenTTLSeconds = 300
        record.refreshTokenTTLSeconds = 3600
        record.tlsClientAuthSubject = .subjectDN(subject)
        return record
    }

    @Test("in the layer: a CA certificate or one that may not sign is refused; an end-entity signing one passes")
    func layer() async throws {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let pki = try TestPKI(now: now)
        let check = MutualTLSClientAuthentication(anchors: [pki.ca], now: now)
        for (problem, certificate) in try Self.refused(pki, now: now) {
            await #expect(throws: MutualTLSClientAuthentication.Refusal.self, "\(problem)") {
                try await check.verify(
                    Self.client(now: now), presented: PresentedClientCertificate(der: certificate.der))
            }
        }
        // The trust anchor itself, presented as the client's certificate for its own subject.
        await #expect(throws: MutualTLSClientAuthentication.Refusal.self, "the CA certificate") {
            try await check.verify(
                Self.client(subject: "CN=UMFA Test CA", now: now),
                presented: PresentedClientCertificate(der: pki.ca.der))
        }
        for (kind, certificate) in try Self.accepted(pki, now: now) {
            await #expect(throws: Never.self, "\(kind)") {
                try await check.verify(
                    Self.client(now: now), presented: PresentedClientCertificate(der: certificate.der))
            }
        }
    }

    @Test("over HTTP: a CA certificate or one that may not sign gets invalid_client; an end-entity signing one a token")
    func live() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let created = try await api.registerClient(app, .machine { $0.tlsClientAuthSubjectDN = Self.subject })
            let client = try #require(created["client_id"]?.stringValue, "\(created.text)")
            let grant = [("grant_type", "client_credentials"), ("client_id", client)]
            for (problem, certificate) in try Self.refused(pki, now: clock.now) {
                let reply = try await api.mtlsForm(.oauthToken, app, grant, certificate: certificate)
                expectOAuthError(reply, .unauthorized, "invalid_client")
                #expect(reply["access_token"] == nil, "\(problem)")
            }
            for (kind, certificate) in try Self.accepted(pki, now: clock.now) {
                let reply = try await api.mtlsForm(.oauthToken, app, grant, certificate: certificate)
                #expect(reply.status == .ok && reply["access_token"] != nil, "\(kind): \(reply.text)")
            }
        }
    }
}
