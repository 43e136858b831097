/// Where a request was addressed: under the public URL, or under the mutual-TLS endpoint alias
/// (RFC 8705 §5) when it arrived on that listener. It is the only way to the URL of an issuer's
/// endpoint as the client sent to it, which a DPoP proof's `htu` (RFC 9449 §4.3) and a client
/// assertion's `aud` (RFC 7523 §3) name, so no endpoint can forget the alias.
struct RequestAddress: Sendable, Equatable {
    /// The alias's base URL (`mtls_endpoint_aliases`) when the request arrived there.
    var mutualTLSAliasBase: String?

    /// A request to the public listener.
    static let publicListener = RequestAddress()

    /// The URL of `issuer`'s `endpoint` (`token`, `userinfo`, …) as this request addressed it.
    func url(of endpoint: String, at issuer: OAuthIssuer) -> String {
        guard let base = mutualTLSAliasBase else { return issuer.issuer + "/" + endpoint }
        return base + "/oidc/" + issuer.application.id.uuidString.lowercased() + "/" + endpoint
    }
}
