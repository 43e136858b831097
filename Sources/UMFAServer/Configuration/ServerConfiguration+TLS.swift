import Foundation

/// HTTPS served by UMFA itself: the certificate and key files (`UMFA_TLS_CERTIFICATE`,
/// `UMFA_TLS_KEY`), reloaded on SIGHUP and when the files change, and the optional mutual-TLS
/// endpoint alias listener (RFC 8705 §5; `UMFA_MTLS_PORT`, `UMFA_MTLS_BASE_URL`).
package struct TLSServing: Sendable, Equatable {
    /// The certificate file: PEM, the leaf first, then any intermediates.
    package var certificatePath: String
    /// The private key file (PEM) of the leaf certificate.
    package var keyPath: String
    /// The port of the mutual-TLS endpoint alias listener; `nil` serves none.
    package var mutualTLSPort: Int?
    /// The URL clients reach the alias at (`UMFA_MTLS_BASE_URL`); `nil` derives it from the
    /// public URL's host and ``mutualTLSPort``.
    package var mutualTLSBaseURL: String?
    /// How often the files' modification times are compared to the loaded ones
    /// (`UMFA_TLS_RELOAD_SECONDS`, default 2); `nil` reloads on SIGHUP only.
    package var reloadPollInterval: Duration? = .seconds(2)
    /// The `Strict-Transport-Security` header every HTTPS answer carries (RFC 6797).
    package var strictTransportSecurity = StrictTransportSecurity()

    /// Creates the settings.
    package init(
        certificatePath: String, keyPath: String, mutualTLSPort: Int? = nil, mutualTLSBaseURL: String? = nil
    ) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.mutualTLSPort = mutualTLSPort
        self.mutualTLSBaseURL = mutualTLSBaseURL
    }

    /// The alias base URL (RFC 8705 §5): the one given, else the public URL with the alias
    /// port; `nil` without an alias listener.
    func aliasBaseURL(publicURL: String) -> String? {
        guard let port = mutualTLSPort else { return nil }
        if let mutualTLSBaseURL { return mutualTLSBaseURL }
        guard var components = URLComponents(string: publicURL) else { return nil }
        components.scheme = "https"
        components.port = port
        return components.string
    }
}

extension ServerConfiguration {
    /// Reads the TLS settings: both files or neither; the alias port only with TLS, and not the
    /// main port; the alias URL an absolute https URL.
    mutating func applyTLS(_ settings: SettingsReader) throws {
        let certificate = settings.string(.tlsCertificate)
        let key = settings.string(.tlsKey)
        let aliasPort = try settings.integer(.mtlsPort, in: 1...65_535)
        let aliasURL = try settings.string(.mtlsBaseURL).map(Self.checkedPublicURL)
        let reload = try settings.duration(.tlsReloadSeconds, seconds: 0...86_400)
        // Up to two years: a longer max-age gains nothing and outlives a mistake.
        let hstsMaxAge = try settings.integer(.hstsMaxAgeSeconds, in: 0...63_072_000)
        let hstsSubdomains = try settings.flag(.hstsIncludeSubdomains)
        switch (certificate, key) {
        case (let certificate?, let key?):
            tls = TLSServing(certificatePath: certificate, keyPath: key)
        case (nil, nil):
            guard aliasPort == nil, aliasURL == nil, reload == nil else {
                throw ConfigurationError(
                    "UMFA_MTLS_PORT, UMFA_MTLS_BASE_URL and UMFA_TLS_RELOAD_SECONDS need TLS: give --tls-certificate and --tls-key too"
                )
            }
            // RFC 6797 §7.2: HSTS is never sent over plain HTTP; a proxy that ends TLS sends its own.
            guard hstsMaxAge == nil, hstsSubdomains == nil else {
                throw ConfigurationError(
                    "UMFA_HSTS_MAX_AGE_SECONDS and UMFA_HSTS_INCLUDE_SUBDOMAINS need TLS served by UMFA: give --tls-certificate and --tls-key too, or set HSTS on the proxy that ends TLS"
                )
            }
            return
        default:
            throw ConfigurationError(
                "UMFA_TLS_CERTIFICATE and UMFA_TLS_KEY go together: give both (--tls-certificate, --tls-key) or neither"
            )
        }
        if let aliasURL, !aliasURL.lowercased().hasPrefix("https:") {
            throw ConfigurationError("UMFA_MTLS_BASE_URL must be an https URL, not \"\(aliasURL)\"")
        }
        if let aliasPort, aliasPort == port {
            throw ConfigurationError("UMFA_MTLS_PORT must differ from UMFA_PORT (\(port))")
        }
        guard aliasPort != nil || aliasURL == nil else {
            throw ConfigurationError("UMFA_MTLS_BASE_URL needs UMFA_MTLS_PORT, the listener it names")
        }
        if let reload { tls?.reloadPollInterval = reload == .zero ? nil : reload }
        if let hstsMaxAge { tls?.strictTransportSecurity.maxAge = hstsMaxAge }
        if let hstsSubdomains { tls?.strictTransportSecurity.includeSubDomains = hstsSubdomains }
        tls?.mutualTLSPort = aliasPort
        tls?.mutualTLSBaseURL = aliasURL
    }
}
