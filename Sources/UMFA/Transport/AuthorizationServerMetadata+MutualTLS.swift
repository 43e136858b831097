import UMFAContract

extension AuthorizationServerMetadata {
    /// The metadata with the endpoints of `mtls_endpoint_aliases` (RFC 8705 §5) in place of the
    /// plain ones, for a client that authenticates with a certificate or holds a
    /// certificate-bound token; unchanged when the issuer lists no aliases.
    var withMutualTLSAliases: AuthorizationServerMetadata {
        guard let aliases = mtlsEndpointAliases else { return self }
        var metadata = self
        metadata.tokenEndpoint = aliases.tokenEndpoint
        metadata.pushedAuthorizationRequestEndpoint = aliases.pushedAuthorizationRequestEndpoint
        metadata.introspectionEndpoint = aliases.introspectionEndpoint
        metadata.revocationEndpoint = aliases.revocationEndpoint
        metadata.userinfoEndpoint = aliases.userinfoEndpoint
        if let device = aliases.deviceAuthorizationEndpoint { metadata.deviceAuthorizationEndpoint = device }
        if let ciba = aliases.backchannelAuthenticationEndpoint { metadata.backchannelAuthenticationEndpoint = ciba }
        return metadata
    }
}
