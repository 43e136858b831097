import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// RFC 8705 client metadata at the admin API and dynamic registration: each rule broken is 400
/// whose message names the member; what is stored is shown back.
@Suite("Mutual TLS: client metadata rules (RFC 8705 §2.1.2, §2.2, §3.4)")
struct MutualTLSClientSettingsTests {
    static func request(_ method: String, _ configure: (inout OAuthClientRequest) -> Void = { _ in })
        -> OAuthClientRequest
    {
        var request = OAuthClientRequest(
            clientName: "Machine", grantTypes: ["client_credentials"], responseTypes: [],
            tokenEndpointAuthMethod: method, scope: "api")
        configure(&request)
        return request
    }

    @Test("each broken rule is 400 naming the member, and nothing is stored")
    func refusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let cases: [(OAuthClientRequest, String)] = [
                (Self.request("tls_client_auth"), "tls_client_auth_subject_dn"),
                (
                    Self.request("tls_client_auth") {
                        $0.tlsClientAuthSubjectDN = "CN=a"
                        $0.tlsClientAuthSANDNS = "a.example"
                    }, "tls_client_auth_san_dns"
                ),
                (Self.request("tls_client_auth") { $0.tlsClientAuthSANIP = "300.1.2.3" }, "tls_client_auth_san_ip"),
                (
                    Self.request("tls_client_auth") { $0.tlsClientAuthSubjectDN = "no equals" },
                    "tls_client_auth_subject_dn"
                ),
                (
                    Self.request("client_secret_basic") { $0.tlsClientAuthSubjectDN = "CN=a" },
                    "tls_client_auth_subject_dn"
                ),
                (Self.request("self_signed_tls_client_auth"), "jwks"),
                (
                    Self.request("self_signed_tls_client_auth") {
                        $0.jwks = .object([
                            "keys": .array([.object(["kty": .string("EC"), "x5c": .array([.string("AAAA")])])])
                        ])
                    }, "jwks"
                ),
            ]
            for (request, field) in cases {
                let reply = try await api.registerClient(app, request)
                #expect(reply.status == .badRequest, "\(field): \(reply.text)")
                #expect(reply["message"]?.stringValue?.contains(field) == true, "\(reply.text)")
            }
            let list = try await api.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(list["clients"]?.arrayValue?.isEmpty == true, "\(list.text)")
        }
    }

    @Test("dynamic registration takes the RFC 8705 metadata and answers it")
    func dynamicRegistration() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let initial = try await api.send(
                .post, APIOperation.createInitialAccessToken.path(["id": app.id]), json: .object(["uses": .number(2)]),
                bearer: TestServer.adminToken)
            let token = try #require(initial["initial_access_token"]?.stringValue, "\(initial.text)")
            var body = ClientRegistrationRequest(
                clientName: "Registered", grantTypes: ["client_credentials"], responseTypes: [],
                tokenEndpointAuthMethod: "tls_client_auth", scope: "openid")
            body.tlsClientAuthSANURI = "spiffe://example.com/registered"
            body.tlsClientCertificateBoundAccessTokens = true
            let reply = try await api.send(
                .post, APIOperation.oauthRegisterClient.path(["application_id": app.id]), json: try .encoding(body),
                bearer: token)
            #expect(reply.status == .created, "\(reply.text)")
            #expect(reply["token_endpoint_auth_method"]?.stringValue == "tls_client_auth")
            #expect(reply["tls_client_auth_san_uri"]?.stringValue == "spiffe://example.com/registered")
            #expect(reply["tls_client_certificate_bound_access_tokens"]?.boolValue == true)
            #expect(reply["client_secret"] == nil)

            var broken = body
            broken.tlsClientAuthSANURI = nil
            let refused = try await api.send(
                .post, APIOperation.oauthRegisterClient.path(["application_id": app.id]), json: try .encoding(broken),
                bearer: token)
            #expect(
                refused.status == .badRequest && refused["error"]?.stringValue == "invalid_client_metadata",
                "\(refused.text)")
        }
    }
}
