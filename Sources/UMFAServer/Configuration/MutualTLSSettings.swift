import Foundation
import X509

/// What the server is told about client certificates (RFC 8705): the header a trusted
/// TLS-terminating proxy puts the client certificate in (§6.5), the proxies trusted to set it,
/// and the trust anchors `tls_client_auth` certificates must chain to (§2.1).
package struct MutualTLSSettings: Sendable {
    /// `UMFA_TLS_CLIENT_CERT_HEADER`: the header a trusted proxy sets to the client certificate
    /// (URL-encoded PEM as nginx's `$ssl_client_escaped_cert`, PEM, or base64 DER); `nil` reads
    /// no header (the default).
    package var certificateHeader: String?
    /// `UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES`: the connected peers whose certificate header is
    /// believed; from anyone else the header is ignored.
    package var trustedProxies: [IPAddressRange] = []
    /// `UMFA_MTLS_TRUST_ANCHORS`: the CA certificates (a PEM file) a `tls_client_auth` client's
    /// certificate must chain to; none configured refuses every `tls_client_auth` client.
    package var trustAnchors: [Certificate] = []

    /// Creates settings that read no header and trust no CA.
    package init() {}

    /// The settings `settings` gives; a bad value throws a ``ConfigurationError`` naming it.
    package static func from(_ settings: SettingsReader) throws -> MutualTLSSettings {
        var result = MutualTLSSettings()
        if let header = settings.string(.tlsClientCertHeader) {
            guard header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }) else {
                throw ConfigurationError("UMFA_TLS_CLIENT_CERT_HEADER must be a header name, not \"\(header)\"")
            }
            result.certificateHeader = header
        }
        if let list = settings.string(.tlsClientCertTrustedProxies) {
            result.trustedProxies = try list.split(whereSeparator: { $0 == "," || $0 == " " }).map {
                guard let range = IPAddressRange(String($0)) else {
                    throw ConfigurationError(
                        "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES must list IP addresses or CIDR ranges, not \"\($0)\"")
                }
                return range
            }
        }
        if result.certificateHeader != nil, result.trustedProxies.isEmpty {
            throw ConfigurationError(
                "UMFA_TLS_CLIENT_CERT_HEADER needs UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES: the proxies allowed to set it")
        }
        if let path = settings.string(.mtlsTrustAnchors) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError("UMFA_MTLS_TRUST_ANCHORS: cannot read \(path)")
            }
            let anchors = PEMCertificates.blocks(in: text).compactMap { try? Certificate(pemEncoded: $0) }
            guard !anchors.isEmpty else {
                throw ConfigurationError("UMFA_MTLS_TRUST_ANCHORS: \(path) holds no PEM certificate")
            }
            result.trustAnchors = anchors
        }
        return result
    }
}

/// The `-----BEGIN CERTIFICATE-----` blocks of a PEM text.
enum PEMCertificates {
    static let begin = "-----BEGIN CERTIFICATE-----"
    static let end = "-----END CERTIFICATE-----"

    /// Each certificate block, delimiters included, in order.
    static func blocks(in text: String) -> [String] {
        var blocks: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest[start.upperBound...].range(of: end) {
            blocks.append(String(rest[start.lowerBound..<stop.upperBound]))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
