import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SwiftASN1
import UMFAContract
import UMFAEncoding
import X509

@testable import UMFAServer

/// Certificates made in the test run with swift-certificates (real keys, real signatures): a
/// CA, client certificates it issues, and self-signed ones.
struct TestPKI: Sendable {
    let caKey: P256.Signing.PrivateKey
    let ca: Certificate

    /// A new CA, valid a year around `now`.
    init(name: String = "UMFA Test CA", now: Date) throws {
        caKey = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 365 * 86_400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(caKey))
    }

    /// A client certificate for `subject` with `names` as SANs, issued by the CA; `keyUsage`
    /// adds that extension, `certificateAuthority` marks it `cA` TRUE, and an empty `usage`
    /// leaves out extended key usage.
    func issue(
        _ subject: DistinguishedName, names: [GeneralName] = [], usage: [ExtendedKeyUsage.Usage] = [.clientAuth],
        keyUsage: KeyUsage? = nil, certificateAuthority: Bool = false, now: Date
    ) throws -> Certificate {
        let key = P256.Signing.PrivateKey()
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now - 3600,
            notValidAfter: now + 30 * 86_400, issuer: ca.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(
                    certificateAuthority
                        ? BasicConstraints.isCertificateAuthority(maxPathLength: nil)
                        : BasicConstraints.notCertificateAuthority)
                if !usage.isEmpty { try ExtendedKeyUsage(usage) }
                if let keyUsage { Critical(keyUsage) }
                if !names.isEmpty { try SubjectAlternativeNames(names) }
            }, issuerPrivateKey: .init(caKey))
    }

    /// A self-signed client certificate for `commonName`.
    static func selfSigned(_ commonName: String, now: Date) throws -> Certificate {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(commonName) }
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now - 3600,
            notValidAfter: now + 30 * 86_400, issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: .init(key))
    }
}

extension Certificate {
    /// The DER encoding.
    var der: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(self)
        return serializer.serializedBytes
    }

    /// `x5t#S256` (RFC 8705 §3.1).
    var thumbprint: String { Base64URL.encode(Array(SHA256.hash(data: der))) }

    /// The PEM text.
    var pem: String { (try? serializeAsPEM().pemString) ?? "" }

    /// As nginx's `$ssl_client_escaped_cert` forwards it: URL-encoded PEM.
    var nginxHeader: String {
        pem.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }

    /// A JWK Set that registers it for `self_signed_tls_client_auth` (RFC 8705 §2.2).
    var jwks: JSONValue {
        .object([
            "keys": .array([
                .object(["kty": .string("EC"), "x5c": .array([.string(Data(der).base64EncodedString())])])
            ])
        ])
    }
}

/// A mutual-TLS test server: the client certificate comes in `X-Client-Cert` from a trusted
/// proxy (this machine, as the live test client connects from loopback), `tls_client_auth`
/// certificates chain to `pki`'s CA.
extension OAuthClientRequest {
    /// A machine client (`client_credentials`, scope `api`) that authenticates by `authMethod`
    /// (`tls_client_auth` unless given; `nil` for the default, `client_secret_basic`), changed
    /// by `configure`.
    static func machine(
        authMethod: String? = "tls_client_auth", _ configure: (inout OAuthClientRequest) -> Void = { _ in }
    ) -> OAuthClientRequest {
        var request = OAuthClientRequest(
            clientName: "Machine", grantTypes: ["client_credentials"], responseTypes: [],
            tokenEndpointAuthMethod: authMethod, scope: "api")
        configure(&request)
        return request
    }
}

enum MutualTLSServer {
    static let header = "X-Client-Cert"

    /// A live server whose proxy header is trusted from `trusted` (loopback by default).
    static func with<Value: Sendable>(
        pki: TestPKI, trusted: [String] = ["127.0.0.1", "::1"], clock: TestClock = TestClock(),
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        var server = TestServer(clock: clock)
        let anchors = [pki.ca]
        server.adjust = { configuration in
            configuration.mutualTLS.certificateHeader = header
            configuration.mutualTLS.trustedProxies = trusted.compactMap(IPAddressRange.init)
            configuration.mutualTLS.trustAnchors = anchors
        }
        defer { server.remove() }
        return try await server.run(.live, body)
    }
}

extension API {
    /// A form POST to an issuer endpoint with `certificate` in the proxy header (nginx form).
    func mtlsForm(
        _ operation: APIOperation, _ app: TestApplication, _ parameters: [(String, String)],
        certificate: Certificate?, headerValue: String? = nil, headerValues: [String]? = nil, dpop: String? = nil,
        basic: (String, String)? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let name = HTTPField.Name(MutualTLSServer.header), let value = headerValue ?? certificate?.nginxHeader {
            headers[name] = value
        }
        if let name = HTTPField.Name(MutualTLSServer.header), let headerValues { headers[values: name] = headerValues }
        if let dpop, let name = HTTPField.Name("DPoP") { headers[name] = dpop }
        if let (id, secret) = basic {
            let pair = Self.formEncode(id) + ":" + Self.formEncode(secret)
            headers[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        let body = parameters.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        let response = try await client.execute(
            uri: operation.path(["application_id": app.id]), method: .post, headers: headers,
            body: ByteBuffer(string: body))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// `GET <issuer>/userinfo` with a Bearer token and `certificate` in the proxy header.
    func mtlsUserinfo(_ app: TestApplication, token: String, certificate: Certificate?) async throws -> Reply {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let name = HTTPField.Name(MutualTLSServer.header), let certificate {
            headers[name] = certificate.nginxHeader
        }
        let response = try await client.execute(
            uri: APIOperation.oauthUserinfo.path(["application_id": app.id]), method: .get, headers: headers,
            body: ByteBuffer())
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// Registers a client through the admin API; the raw reply.
    func registerClient(_ app: TestApplication, _ request: OAuthClientRequest) async throws -> Reply {
        try await send(
            .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
            bearer: TestServer.adminToken)
    }
}
