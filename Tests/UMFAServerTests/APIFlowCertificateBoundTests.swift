import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// RFC 8705 §3 in the API-driven flow (docs/contract.md §6): a flow token bound to the client's
/// certificate as well as to its DPoP key starts a flow only where that certificate is presented.
@Suite("API-driven flow: certificate-bound flow tokens (RFC 8705 §3)")
struct APIFlowCertificateBoundTests {
    @Test("a flow token bound to a certificate starts a flow with that certificate; without it or with another, 401")
    func boundFlowToken() async throws {
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await MutualTLSServer.with(pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "open")
            var request = OAuthClientRequest(
                clientName: "Phone app", redirectURIs: [APIFlowServerTests.redirect],
                grantTypes: ["authorization_code"], responseTypes: ["code"], tokenEndpointAuthMethod: "none",
                scope: "openid email urn:umfa:api-flow", firstParty: true, accessTokenTTLSeconds: 3600)
            request.tlsClientCertificateBoundAccessTokens = true
            let client = try await api.createOAuthClient(app, request)
            let certificate = try pki.issue(DistinguishedName { CommonName("phone") }, now: clock.now)
            let key = DPoPKey(now: { clock.now })
            let issued = try await api.mtlsForm(
                .oauthToken, app,
                [("grant_type", "client_credentials"), ("scope", "urn:umfa:api-flow"), ("client_id", client.id)],
                certificate: certificate, dpop: key.proof("POST", APIFlowServerTests.issuer(app) + "/token"))
            let token = try #require(issued["access_token"]?.stringValue, "\(issued.text)")
            #expect(try CompactJWT(token).claims["cnf"]?["x5t#S256"]?.stringValue == certificate.thumbprint)

            let url = APIFlowServerTests.authorize(app, client)
            let start = try APIFlowServerTests.step(
                try await Self.start(api, url, token: token, key: key, certificate: certificate))
            #expect(start.type == .authentication)
            // The attacks: the token with a proof of its key, but no certificate, or another one.
            let bare = try await Self.start(api, url, token: token, key: key, certificate: nil)
            #expect(bare.status == .unauthorized, "\(bare.text)")
            let other = try pki.issue(DistinguishedName { CommonName("thief") }, now: clock.now)
            let stolen = try await Self.start(api, url, token: token, key: key, certificate: other)
            #expect(stolen.status == .unauthorized, "\(stolen.text)")
        }
    }

    /// `GET <authorize URL>` as the flow's first request, with `certificate` in the proxy header.
    static func start(_ api: API, _ url: String, token: String, key: DPoPKey, certificate: Certificate?)
        async throws -> Reply
    {
        var headers: HTTPFields = [.accept: FlowStep.mediaType, .authorization: "DPoP \(token)"]
        let htu = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        headers[DPoPKey.header] = key.proof("GET", htu, accessToken: token)
        if let name = HTTPField.Name(MutualTLSServer.header), let certificate {
            headers[name] = certificate.nginxHeader
        }
        let response = try await api.client.execute(
            uri: String(url.dropFirst(APIFlowServerTests.origin.count)), method: .get, headers: headers,
            body: nil)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }
}
