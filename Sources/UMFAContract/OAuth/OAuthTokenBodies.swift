/// A successful token endpoint answer (RFC 6749 §5.1).
public struct OAuthTokenResponse: ContractBody, Equatable {
    /// The access token (a JWT per RFC 9068).
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The scopes granted, space-separated.
    public var scope: String?
    /// A refresh token, when one was issued.
    public var refreshToken: String?
    /// An ID token, when `openid` was granted.
    public var idToken: String?

    /// Creates an answer.
    public init(
        accessToken: String, tokenType: String, expiresIn: Int, scope: String?, refreshToken: String? = nil,
        idToken: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.scope = scope
        self.refreshToken = refreshToken
        self.idToken = idToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
        case refreshToken = "refresh_token"
        case idToken = "id_token"
    }

    /// An example with every member.
    public static let example = OAuthTokenResponse(
        accessToken: "eyJ.x.y", tokenType: "Bearer", expiresIn: 600, scope: "api", refreshToken: "r",
        idToken: "eyJ.i.d")
}

/// A token introspection answer (RFC 7662 §2.2): `{"active": false}` for any token that is not
/// valid for the caller's application, else its claims.
public struct IntrospectionResponse: ContractBody, Equatable {
    /// Whether the token is valid now.
    public var active: Bool
    /// The scopes, space-separated.
    public var scope: String?
    /// The client the token was issued to.
    public var clientID: String?
    /// The subject: a user, or the client itself for `client_credentials`.
    public var sub: String?
    /// Expiry, seconds since 1970.
    public var exp: Int?
    /// Issue time, seconds since 1970.
    public var iat: Int?
    /// `Bearer`.
    public var tokenType: String?
    /// The issuer.
    public var iss: String?
    /// The audience.
    public var aud: String?
    /// The token's id.
    public var jti: String?

    /// Creates an answer.
    public init(
        active: Bool, scope: String? = nil, clientID: String? = nil, sub: String? = nil, exp: Int? = nil,
        iat: Int? = nil, tokenType: String? = nil, iss: String? = nil, aud: String? = nil, jti: String? = nil
    ) {
        self.active = active
        self.scope = scope
        self.clientID = clientID
        self.sub = sub
        self.exp = exp
        self.iat = iat
        self.tokenType = tokenType
        self.iss = iss
        self.aud = aud
        self.jti = jti
    }

    enum CodingKeys: String, CodingKey {
        case active, scope, sub, exp, iat, iss, aud, jti
        case clientID = "client_id"
        case tokenType = "token_type"
    }

    /// An example with every member.
    public static let example = IntrospectionResponse(
        active: true, scope: "api", clientID: "umfa_ci_x", sub: "umfa_ci_x", exp: 1_800_000_600, iat: 1_800_000_000,
        tokenType: "Bearer", iss: "https://umfa.example/oidc/\(Examples.applicationID)", aud: "https://api.example",
        jti: "j")
}

/// An error of an OAuth endpoint (RFC 6749 §5.2), with UMFA's trace id.
public struct OAuthErrorResponse: ContractBody, TraceCarrying, Equatable {
    /// The RFC 6749 error code (`invalid_request`, `invalid_client`, `invalid_grant`, …).
    public var error: String
    /// What went wrong, for the developer.
    public var errorDescription: String
    /// The request's trace id.
    public var traceID: String

    /// Creates an answer.
    public init(error: String, errorDescription: String, traceID: String) {
        self.error = error
        self.errorDescription = errorDescription
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = OAuthErrorResponse(
        error: "invalid_client", errorDescription: "Client authentication failed", traceID: Examples.traceID)
}

/// Authorization server metadata (RFC 8414), also served as the OpenID Connect discovery
/// document: what this version of the provider offers, and nothing it does not.
public struct AuthorizationServerMetadata: ContractBody, Equatable {
    /// The issuer: `<public URL>/oidc/<application_id>`.
    public var issuer: String
    /// The token endpoint.
    public var tokenEndpoint: String
    /// The issuer's JWK Set.
    public var jwksURI: String
    /// RFC 7662 introspection.
    public var introspectionEndpoint: String
    /// RFC 7009 revocation.
    public var revocationEndpoint: String
    /// The scopes clients may ask for.
    public var scopesSupported: [String]
    /// The response types of the authorization endpoint (none until it exists).
    public var responseTypesSupported: [String]
    /// The grant types of the token endpoint.
    public var grantTypesSupported: [String]
    /// How clients authenticate at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]
    /// How clients authenticate at introspection.
    public var introspectionEndpointAuthMethodsSupported: [String]
    /// How clients authenticate at revocation.
    public var revocationEndpointAuthMethodsSupported: [String]
    /// The PKCE methods (S256 only).
    public var codeChallengeMethodsSupported: [String]

    /// Creates a document.
    public init(
        issuer: String, tokenEndpoint: String, jwksURI: String, introspectionEndpoint: String,
        revocationEndpoint: String, scopesSupported: [String], responseTypesSupported: [String],
        grantTypesSupported: [String], tokenEndpointAuthMethodsSupported: [String],
        codeChallengeMethodsSupported: [String]
    ) {
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.introspectionEndpoint = introspectionEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        introspectionEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        revocationEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
    }

    /// An example with every member.
    public static let example = AuthorizationServerMetadata(
        issuer: "https://umfa.example/oidc/x", tokenEndpoint: "https://umfa.example/oidc/x/token",
        jwksURI: "https://umfa.example/oidc/x/jwks", introspectionEndpoint: "https://umfa.example/oidc/x/introspect",
        revocationEndpoint: "https://umfa.example/oidc/x/revoke", scopesSupported: ["openid"],
        responseTypesSupported: [], grantTypesSupported: ["client_credentials"],
        tokenEndpointAuthMethodsSupported: ["client_secret_basic"], codeChallengeMethodsSupported: ["S256"])
}
