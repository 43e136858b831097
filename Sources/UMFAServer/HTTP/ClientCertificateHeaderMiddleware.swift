import Foundation
import HTTPTypes
import Hummingbird
import Logging
import X509

/// The client certificate a trusted TLS-terminating proxy forwards (RFC 8705 §6.5): when
/// `UMFA_TLS_CLIENT_CERT_HEADER` names a header and the connected peer is one of
/// `UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES`, the certificate in that header becomes the request's
/// ``UMFARequestContext/clientCertificate``, unless the mutual-TLS listener already set one.
/// From any other peer the header is ignored: a client cannot claim a certificate by header. A
/// header that is not a certificate counts as none (logged at debug), never as an error.
struct ClientCertificateHeaderMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext
    let header: HTTPField.Name?
    let trustedProxies: [IPAddressRange]
    let logger: Logger

    init(settings: MutualTLSSettings, logger: Logger) {
        header = settings.certificateHeader.flatMap { HTTPField.Name($0) }
        trustedProxies = settings.trustedProxies
        self.logger = logger
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header, context.clientCertificate == nil, let value = request.headers[header] else {
            return try await next(request, context)
        }
        // One field only: a proxy that appends its header after the client's would otherwise
        // have the client's own (first) value believed.
        guard request.headers[values: header].count == 1 else {
            logger.debug("client certificate header ignored: sent more than once")
            return try await next(request, context)
        }
        guard let peer = context.remoteAddress?.ipAddress, trustedProxies.contains(where: { $0.contains(peer) })
        else {
            logger.debug(
                "client certificate header ignored: the peer is not a trusted proxy",
                metadata: ["client.address": .string(context.remoteAddress?.ipAddress ?? "unknown")])
            return try await next(request, context)
        }
        var context = context
        if let certificate = ForwardedClientCertificate.parse(value) {
            context.clientCertificate = certificate
        } else {
            logger.debug("client certificate header ignored: not a certificate")
        }
        return try await next(request, context)
    }
}

/// A client certificate as proxies forward it: URL-encoded PEM (nginx
/// `$ssl_client_escaped_cert`, AWS ALB), PEM with its line breaks turned into spaces (Apache,
/// some ingresses), or base64 DER (standard or base64url, as Traefik and Envoy pass it).
enum ForwardedClientCertificate {
    /// The certificate in `value`; `nil` when it holds no parsable X.509 certificate.
    static func parse(_ value: String) -> PresentedClientCertificate? {
        guard value.utf8.count <= 32_768 else { return nil }
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if text.contains("%") { text = text.removingPercentEncoding ?? text }
        let der: [UInt8]?
        if let block = PEMCertificates.blocks(in: text).first {
            let body = block.dropFirst(PEMCertificates.begin.count).dropLast(PEMCertificates.end.count)
            der = base64(String(body))
        } else {
            der = base64(text)
        }
        // Parsed to make sure it is one certificate; the DER itself is what is kept (RFC 8705
        // §3.1 hashes the certificate as received).
        guard let der, (try? Certificate(derEncoded: der)) != nil else { return nil }
        return PresentedClientCertificate(der: der)
    }

    /// Standard or URL-safe base64 with any whitespace, padded or not.
    private static func base64(_ text: String) -> [UInt8]? {
        var compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        compact = compact.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while compact.count % 4 != 0 { compact += "=" }
        return Data(base64Encoded: compact).map { Array($0) }
    }
}
