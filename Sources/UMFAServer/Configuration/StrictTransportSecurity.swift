/// HTTP Strict Transport Security (RFC 6797) as UMFA sends it on its HTTPS answers:
/// `UMFA_HSTS_MAX_AGE_SECONDS` (one year by default) and `UMFA_HSTS_INCLUDE_SUBDOMAINS` (off by
/// default, since it binds every subdomain of the host to HTTPS).
package struct StrictTransportSecurity: Sendable, Equatable {
    /// One year, the common default (docs/operators/tls.md).
    package static let defaultMaxAge = 31_536_000

    /// How long a browser keeps the host HTTPS-only, in seconds (RFC 6797 §6.1.1); `0` ends it.
    package var maxAge: Int
    /// Whether the policy covers the host's subdomains (RFC 6797 §6.1.2).
    package var includeSubDomains: Bool

    /// Creates the policy.
    package init(maxAge: Int = defaultMaxAge, includeSubDomains: Bool = false) {
        self.maxAge = maxAge
        self.includeSubDomains = includeSubDomains
    }

    /// The header value: `max-age=31536000`, with `; includeSubDomains` when set (RFC 6797 §6.1).
    package var headerValue: String {
        "max-age=\(maxAge)" + (includeSubDomains ? "; includeSubDomains" : "")
    }
}
