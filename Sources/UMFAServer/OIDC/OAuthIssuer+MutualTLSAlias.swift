import UMFAContract

extension OAuthIssuer {
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
