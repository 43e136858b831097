/// `mtls_endpoint_aliases` of the authorization server metadata (RFC 8705 §5): where a client
/// reaches the endpoints it authenticates at with a TLS client certificate, or presents a
/// certificate-bound token to — a listener that asks for a certificate, so the main one never
/// prompts a browser for one.
public struct MTLSEndpointAliases: Codable, Sendable, Equatable {
    /// The token endpoint on the mutual-TLS listener.
    public var tokenEndpoint: String
    /// RFC 9126 pushed authorization requests on the mutual-TLS listener.
    public var pushedAuthorizationRequestEndpoint: String
    /// RFC 7662 introspection on the mutual-TLS listener.
    public var introspectionEndpoint: String
    /// RFC 7009 revocation on the mutual-TLS listener.
    public var revocationEndpoint: String
    /// UserInfo on the mutual-TLS listener, for certificate-bound access tokens (RFC 8705 §3).
    public var userinfoEndpoint: String
    /// RFC 8628 device authorization on the mutual-TLS listener. Optional so that other
    /// servers' metadata decodes.
    public var deviceAuthorizationEndpoint: String?
    /// OpenID CIBA backchannel authentication on the mutual-TLS listener (FAPI-CIBA clients
    /// authenticate there with `tls_client_auth`). Optional so that other servers' metadata decodes.
    public var backchannelAuthenticationEndpoint: String?

    /// The aliases of the issuer `issuerPath` (`/oidc/{application_id}`) under `baseURL`.
    public init(baseURL: String, issuerPath: String) {
        let issuer = baseURL + issuerPath
        tokenEndpoint = issuer + "/token"
        pushedAuthorizationRequestEndpoint = issuer + "/par"
        introspectionEndpoint = issuer + "/introspect"
        revocationEndpoint = issuer + "/revoke"
        userinfoEndpoint = issuer + "/userinfo"
        deviceAuthorizationEndpoint = issuer + "/device_authorization"
        backchannelAuthenticationEndpoint = issuer + "/bc-authorize"
    }

    enum CodingKeys: String, CodingKey {
        case tokenEndpoint = "token_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
    }
}
