import UMFAContract

extension OAuthIssuer {
    /// The URL of this issuer's `endpoint` (`token`, `userinfo`, …) as the client addressed it:
    /// under the mutual-TLS alias's base when the request arrived there, else under the issuer.
    func endpointURL(_ endpoint: String, mutualTLSAliasBase base: String?) -> String {
        guard let base else { return issuer + "/" + endpoint }
        return base + "/oidc/" + application.id.uuidString.lowercased() + "/" + endpoint
    }

    /// The metadata with `mtls_endpoint_aliases` (RFC 8705 §5) when the server runs the
    /// mutual-TLS listener at `base`.
    func metadata(mutualTLSAlias base: String?) -> AuthorizationServerMetadata {
        var metadata = metadata
        metadata.mtlsEndpointAliases = base.map {
            MTLSEndpointAliases(baseURL: $0, issuerPath: "/oidc/" + application.id.uuidString.lowercased())
        }
        return metadata
    }
}
