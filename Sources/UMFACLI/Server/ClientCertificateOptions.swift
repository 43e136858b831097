import ArgumentParser
import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import X509

/// The mutual-TLS options of `umfa admin create-client` (RFC 8705): the certificate subject a
/// `tls_client_auth` client is recognised by (§2.1.2), the certificate a
/// `self_signed_tls_client_auth` client registers (§2.2), and certificate-bound tokens (§3.4).
struct ClientCertificateOptions: ParsableArguments {
    @Option(
        name: .customLong("tls-subject-dn"),
        help: "tls_client_auth: the RFC 4514 subject DN of the client's certificate, e.g. 'CN=shop,O=Example'.")
    var subjectDN: String?
    @Option(name: .customLong("tls-san-dns"), help: "tls_client_auth: a DNS name SAN of the client's certificate.")
    var sanDNS: String?
    @Option(name: .customLong("tls-san-uri"), help: "tls_client_auth: a URI SAN of the client's certificate.")
    var sanURI: String?
    @Option(name: .customLong("tls-san-ip"), help: "tls_client_auth: an IP address SAN of the client's certificate.")
    var sanIP: String?
    @Option(name: .customLong("tls-san-email"), help: "tls_client_auth: an email SAN of the client's certificate.")
    var sanEmail: String?
    @Option(
        name: .customLong("tls-certificate"),
        help: "self_signed_tls_client_auth: a PEM file with the client's certificate, registered in jwks (x5c).")
    var certificateFile: String?
    @Flag(
        name: .customLong("tls-bound-tokens"),
        help: "Bind the client's access tokens to its TLS client certificate (cnf.x5t#S256).")
    var boundTokens = false

    /// Sets the request's RFC 8705 members from the options given.
    func apply(to request: inout OAuthClientRequest) throws {
        request.tlsClientAuthSubjectDN = subjectDN
        request.tlsClientAuthSANDNS = sanDNS
        request.tlsClientAuthSANURI = sanURI
        request.tlsClientAuthSANIP = sanIP
        request.tlsClientAuthSANEmail = sanEmail
        request.tlsClientCertificateBoundAccessTokens = boundTokens ? true : nil
        if let certificateFile { request.jwks = try Self.jwks(certificateFile: certificateFile) }
    }

    /// `{"keys": [{"kty", "x5c": [<DER, base64>], "x5t#S256"}]}` for the PEM certificate in `path`.
    static func jwks(certificateFile path: String) throws -> JSONValue {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let start = text.range(of: begin),
            let stop = text.range(of: end, range: start.upperBound..<text.endIndex),
            let data = Data(
                base64Encoded: String(text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace })),
            let certificate = try? Certificate(derEncoded: Array(data))
        else { throw ValidationError("--tls-certificate \(path) is not a readable PEM certificate") }
        // The DER as the file has it: the server compares the presented certificate byte for byte.
        let der = Array(data)
        let keyType: String
        if P256.Signing.PublicKey(certificate.publicKey) != nil || P384.Signing.PublicKey(certificate.publicKey) != nil
        {
            keyType = "EC"
        } else if Curve25519.Signing.PublicKey(certificate.publicKey) != nil {
            keyType = "OKP"
        } else {
            keyType = "RSA"
        }
        return .object([
            "keys": .array([
                .object([
                    "kty": .string(keyType), "x5c": .array([.string(Data(der).base64EncodedString())]),
                    "x5t#S256": .string(Base64URL.encode(Array(SHA256.hash(data: der)))),
                ])
            ])
        ])
    }
}
