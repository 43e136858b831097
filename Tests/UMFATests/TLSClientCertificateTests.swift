import Foundation
import NIOSSL
import Testing
import UMFA
import UMFATLSTransport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client certificate `TLSTransport` presents (RFC 8705 §2), seen by `openssl s_server
/// -Verify 1`, which demands one; and the SDK's own requests over the transport, whose refusals
/// reach the app as clear ``ZSMError``s.
@Suite(.serialized) struct TLSClientCertificateTests {
    private func withVerifyingServer(_ body: (TestPKI, OpenSSLServer) async throws -> Void) async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        let server = try await OpenSSLServer.start(
            pki: pki, certificate: "ca-server.pem", key: "ca-server.key", clientCA: "ca.pem")
        do {
            try await body(pki, server)
        } catch {
            await server.stop()
            // What the server saw (a refused certificate, an alert) is half of any failure.
            Issue.record("openssl s_server said: \((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "")")
            throw error
        }
        await server.stop()
    }

    private func transport(_ pki: TestPKI, identity: TLSClientIdentity?, pin: String? = nil) async throws
        -> TLSTransport
    {
        var pins = [try await pki.pin(of: "ca-server.pem")]
        if let pin { pins = [pin] }
        // A minute: under the whole suite `openssl s_server` and the handshake can take more
        // than ten seconds to answer (a failed run saw "did not answer in time"); no test here
        // waits for the timeout.
        return try TLSTransport(
            TLSTransportConfiguration(
                clientIdentity: identity, trust: .certificates(try NIOSSLCertificate.fromPEMFile(pki.path("ca.pem"))),
                pins: pins, timeout: 60))
    }

    @Test func aPEMIdentityIsPresentedToTheServer() async throws {
        try await withVerifyingServer { pki, server in
            let identity = try TLSClientIdentity.pem(
                certificatePath: pki.path("client.pem"), keyPath: pki.path("client.key"))
            let (data, response) = try await transport(pki, identity: identity).send(URLRequest(url: server.url()))
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains("Subject: CN=client-1, O=UMFA Test"))
        }
    }

    @Test func aPKCS12IdentityIsPresentedToTheServer() async throws {
        try await withVerifyingServer { pki, server in
            let identity = try TLSClientIdentity.pkcs12(path: pki.path("client.p12"), passphrase: "p12-secret")
            let (data, _) = try await transport(pki, identity: identity).send(URLRequest(url: server.url()))
            #expect(String(decoding: data, as: UTF8.self).contains("Subject: CN=client-1, O=UMFA Test"))
            #expect(throws: TLSTransportError.self) {
                try TLSClientIdentity.pkcs12(path: pki.path("client.p12"), passphrase: "wrong")
            }
        }
    }

    @Test func withoutAnIdentityTheServerEndsTheHandshake() async throws {
        try await withVerifyingServer { pki, server in
            await #expect {
                _ = try await transport(pki, identity: nil).send(URLRequest(url: server.url()))
            } throws: { error in
                guard case .connectionFailed(let host, _) = error as? TLSTransportError else { return false }
                return host == "localhost"
            }
        }
    }

    @Test func aRefusedServerKeyReachesTheSDKAsAFinalNetworkError() async throws {
        try await withVerifyingServer { pki, server in
            let identity = try TLSClientIdentity.pem(
                certificatePath: pki.path("client.pem"), keyPath: pki.path("client.key"))
            let wrongPin = try await pki.pin(of: "other-ca-server.pem")
            let issuer = try #require(URL(string: "https://localhost:\(server.port)/oidc/\(UUID().uuidString)"))
            var oauth = OAuthConfiguration(issuer: issuer, clientId: "mtls-client")
            oauth.transport = try await transport(pki, identity: identity, pin: wrongPin)
            let manager = OAuthTokenManager(configuration: oauth, dpopKey: DPoPKey())
            do throws(ZSMError) {
                _ = try await manager.metadata()
                Issue.record("a server whose key matches no pin answered")
            } catch {
                #expect(error.code == .networkError)
                #expect(error.recovery == .giveUp)
                #expect(error.message.contains("matches none of the pinned keys"))
            }
            // The relying party (ceremonies) gives up at once too: no retry can help.
            var device = ZSMConfig(hostURL: server.url(), applicationId: UUID().uuidString)
            device.transport = oauth.transport
            device.retryCount = 3
            do throws(ZSMError) {
                _ = try await UMFAHTTPRelyingParty(config: device).beginAuthentication(userId: "alice")
                Issue.record("a server whose key matches no pin answered")
            } catch {
                #expect(error.code == .networkError && error.recovery == .giveUp)
            }
            // With the right pin the same requests reach the server (an HTML page, not UMFA).
            oauth.transport = try await transport(pki, identity: identity)
            let reached = OAuthTokenManager(configuration: oauth, dpopKey: DPoPKey())
            await #expect(throws: ZSMError(.invalidConfiguration, "")) { _ = try await reached.metadata() }
        }
    }
}
