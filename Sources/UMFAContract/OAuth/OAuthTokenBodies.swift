import UMFAEncoding

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
    /// What the person authorized (RFC 9396 §7), when the request asked for it.
    public var authorizationDetails: JSONValue?

    /// Creates an answer.
    public init(
        accessToken: String, tokenType: String, expiresIn: Int, scope: String?, refreshToken: String? = nil,
        idToken: String? = nil, authorizationDetails: JSONValue? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.scope = scope
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.authorizationDetails = authorizationDetails
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case authorizationDetails = "authorization_details"
    }

    /// An example with every member.
    public static let example = OAuthTokenResponse(
        accessToken: "eyJ.x.y", tokenType: "Bearer", expiresIn: 600, scope: "api", refreshToken: "r",
        idToken: "eyJ.i.d", authorizationDetails: .array([.object(["type": .string("payment_initiation")])]))
}

/// The answer of the pushed authorization request endpoint (RFC 9126 §2.2).
public struct PushedAuthorizationResponse: ContractBody, Equatable {
    /// The `request_uri` to send to the authorization endpoint with the `client_id`, once.
    public var requestURI: String
    /// Seconds until it expires.
    public var expiresIn: Int

    /// Creates an answer.
    public init(requestURI: String, expiresIn: Int) {
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case requestURI = "request_uri"
        case expiresIn = "expires_in"
    }

    /// An example with every member.
    public static let example = PushedAuthorizationResponse(
        requestURI: "urn:ietf:params:oauth:request_uri:x", expiresIn: 60)
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
    /// The key a DPoP-bound token is bound to (RFC 9449 §6.2).
    public var cnf: TokenConfirmation?
    /// A user's token: when the user signed in, seconds since 1970 (RFC 9470 §4: what a
    /// resource compares with the `max_age` it needs).
    public var authTime: Int?
    /// A user's token: the authentication context class the sign-in reached (RFC 9470 §4).
    public var acr: String?
    /// A user's token: what the person authorized (RFC 9396 §9.2), when the request asked.
    public var authorizationDetails: JSONValue?

    /// Creates an answer.
    public init(
        active: Bool, scope: String? = nil, clientID: String? = nil, sub: String? = nil, exp: Int? = nil,
        iat: Int? = nil, tokenType: String? = nil, iss: String? = nil, aud: String? = nil, jti: String? = nil,
        cnf: TokenConfirmation? = nil
    ) {
        self.cnf = cnf
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
        case active, scope, sub, exp, iat, iss, aud, jti, cnf, acr
        case clientID = "client_id"
        case tokenType = "token_type"
        case authTime = "auth_time"
        case authorizationDetails = "authorization_details"
    }

    /// An example with every member.
    public static let example: IntrospectionResponse = {
        var example = IntrospectionResponse(
            active: true, scope: "api", clientID: "umfa_ci_x", sub: "umfa_ci_x", exp: 1_800_000_600,
            iat: 1_800_000_000, tokenType: "DPoP", iss: "https://umfa.example/oidc/\(Examples.applicationID)",
            aud: "https://api.example", jti: "j",
            cnf: TokenConfirmation(
                jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I",
                x5tS256: "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"))
        example.authTime = 1_799_999_900
        example.acr = "urn:umfa:acr:passkey"
        example.authorizationDetails = .array([.object(["type": .string("payment_initiation")])])
        return example
    }()
}

/// The confirmation claim of a bound token (RFC 7800 §3.1): the DPoP key (RFC 9449 §6.1), the
/// TLS client certificate (RFC 8705 §3.1), or both.
public struct TokenConfirmation: Codable, Sendable, Equatable {
    /// The RFC 7638 thumbprint of the DPoP key.
    public var jkt: String?
    /// `x5t#S256`: base64url of the SHA-256 of the DER client certificate (RFC 8705 §3.1).
    public var x5tS256: String?

    /// Creates a confirmation.
    public init(jkt: String? = nil, x5tS256: String? = nil) {
        self.jkt = jkt
        self.x5tS256 = x5tS256
    }

    enum CodingKeys: String, CodingKey {
        case jkt
        case x5tS256 = "x5t#S256"
    }
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
/// document (OpenID Connect Discovery 1.0 §3): what this version of the provider offers, and
/// nothing it does not.
public struct AuthorizationServerMetadata: ContractBody, Equatable {
    /// The issuer: `<public URL>/oidc/<application_id>`.
    public var issuer: String
    /// The authorization endpoint (hosted passkey pages).
    public var authorizationEndpoint: String
    /// The token endpoint.
    public var tokenEndpoint: String
    /// The UserInfo endpoint (OpenID Connect Core §5.3).
    public var userinfoEndpoint: String
    /// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0).
    public var endSessionEndpoint: String
    /// The issuer's JWK Set.
    public var jwksURI: String
    /// RFC 7662 introspection.
    public var introspectionEndpoint: String
    /// RFC 7009 revocation.
    public var revocationEndpoint: String
    /// RFC 9126 pushed authorization requests.
    public var pushedAuthorizationRequestEndpoint: String
    /// RFC 7591 dynamic client registration (with an initial access token).
    public var registrationEndpoint: String
    /// RFC 8628 §4: the device authorization endpoint. Optional so that metadata of issuers
    /// without the device grant still decodes.
    public var deviceAuthorizationEndpoint: String?
    /// Whether every client must use PAR (RFC 9126 §5): no, only those registered so.
    public var requirePushedAuthorizationRequests: Bool
    /// The scopes clients may ask for.
    public var scopesSupported: [String]
    /// The response types of the authorization endpoint (`code`).
    public var responseTypesSupported: [String]
    /// `query`: the only response mode.
    public var responseModesSupported: [String]
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
    /// How ID tokens are signed.
    public var idTokenSigningAlgValuesSupported: [String]
    /// `public` (`sub` is the application's user id) and `pairwise` (OpenID Connect Core §8.1,
    /// per client setting `subject_type`).
    public var subjectTypesSupported: [String]
    /// The claims ID tokens and UserInfo may carry.
    public var claimsSupported: [String]
    /// The `prompt` values the authorization endpoint honours.
    public var promptValuesSupported: [String]
    /// RFC 9207: authorization responses carry `iss`.
    public var authorizationResponseIssParameterSupported: Bool
    /// RFC 9449 §5.1: the algorithms DPoP proofs may use.
    public var dpopSigningAlgValuesSupported: [String]
    /// RFC 8705 §3.3: access tokens can be bound to the client's TLS certificate.
    public var tlsClientCertificateBoundAccessTokens = true
    /// RFC 8705 §5: the endpoints on the mutual-TLS listener, when the server runs one.
    public var mtlsEndpointAliases: MTLSEndpointAliases?
    /// OpenID Connect Back-Channel Logout 1.0 §2.1: logout tokens go to clients'
    /// `backchannel_logout_uri`. Optional so that other issuers' metadata decodes.
    public var backchannelLogoutSupported: Bool?
    /// Back-Channel Logout 1.0 §2.1: logout tokens carry `sid`.
    public var backchannelLogoutSessionSupported: Bool?
    /// RFC 9101 §10.1: the authorization and PAR endpoints take `request`.
    public var requestParameterSupported: Bool?
    /// RFC 9101 §10.1: the algorithms a request object may be signed with (never `none`).
    public var requestObjectSigningAlgValuesSupported: [String]?
    /// OpenID Connect Discovery 1.0 §3: UMFA's authentication context classes, from the weakest
    /// (docs/oidc-provider.md). Optional so that other issuers' metadata decodes.
    public var acrValuesSupported: [String]?
    /// OpenID Connect Discovery 1.0 §3: the authorization endpoint takes `claims` (Core §5.5).
    public var claimsParameterSupported: Bool?
    /// OpenID CIBA Core 1.0 §4: the backchannel authentication endpoint. Optional so that other
    /// issuers' metadata decodes.
    public var backchannelAuthenticationEndpoint: String?
    /// CIBA Core §4: `poll` and `ping`.
    public var backchannelTokenDeliveryModesSupported: [String]?
    /// CIBA Core §4: `false`; no user codes.
    public var backchannelUserCodeParameterSupported: Bool?
    /// RFC 9396 §10: the application's declared `authorization_details` types.
    public var authorizationDetailsTypesSupported: [String]?

    /// Creates a document.
    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, userinfoEndpoint: String,
        endSessionEndpoint: String, jwksURI: String, introspectionEndpoint: String, revocationEndpoint: String,
        scopesSupported: [String], grantTypesSupported: [String], tokenEndpointAuthMethodsSupported: [String],
        idTokenSigningAlgValuesSupported: [String], claimsSupported: [String], promptValuesSupported: [String]
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.jwksURI = jwksURI
        self.introspectionEndpoint = introspectionEndpoint
        self.revocationEndpoint = revocationEndpoint
        pushedAuthorizationRequestEndpoint = issuer + "/par"
        registrationEndpoint = issuer + "/register"
        deviceAuthorizationEndpoint = issuer + "/device_authorization"
        requirePushedAuthorizationRequests = false
        self.scopesSupported = scopesSupported
        responseTypesSupported = ["code"]
        responseModesSupported = ["query"]
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        introspectionEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported.filter { $0 != "none" }
        revocationEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        codeChallengeMethodsSupported = ["S256"]
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        subjectTypesSupported = ["public", "pairwise"]
        self.claimsSupported = claimsSupported
        self.promptValuesSupported = promptValuesSupported
        authorizationResponseIssParameterSupported = true
        dpopSigningAlgValuesSupported = ["ES256", "RS256", "EdDSA"]
        backchannelLogoutSupported = true
        backchannelLogoutSessionSupported = true
        requestParameterSupported = true
        requestObjectSigningAlgValuesSupported = ["ES256", "RS256", "EdDSA"]
        claimsParameterSupported = true
        backchannelAuthenticationEndpoint = issuer + "/bc-authorize"
        backchannelTokenDeliveryModesSupported = ["poll", "ping"]
        backchannelUserCodeParameterSupported = false
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case jwksURI = "jwks_uri"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case subjectTypesSupported = "subject_types_supported"
        case claimsSupported = "claims_supported"
        case promptValuesSupported = "prompt_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        case mtlsEndpointAliases = "mtls_endpoint_aliases"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestObjectSigningAlgValuesSupported = "request_object_signing_alg_values_supported"
        case acrValuesSupported = "acr_values_supported"
        case claimsParameterSupported = "claims_parameter_supported"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
        case authorizationDetailsTypesSupported = "authorization_details_types_supported"
    }

    /// An example with every member.
    public static let example: AuthorizationServerMetadata = {
        var example = AuthorizationServerMetadata(
            issuer: "https://umfa.example/oidc/x", authorizationEndpoint: "https://umfa.example/oidc/x/authorize",
            tokenEndpoint: "https://umfa.example/oidc/x/token",
            userinfoEndpoint: "https://umfa.example/oidc/x/userinfo",
            endSessionEndpoint: "https://umfa.example/oidc/x/logout", jwksURI: "https://umfa.example/oidc/x/jwks",
            introspectionEndpoint: "https://umfa.example/oidc/x/introspect",
            revocationEndpoint: "https://umfa.example/oidc/x/revoke", scopesSupported: ["openid"],
            grantTypesSupported: ["authorization_code"], tokenEndpointAuthMethodsSupported: ["client_secret_basic"],
            idTokenSigningAlgValuesSupported: ["RS256"], claimsSupported: ["sub"], promptValuesSupported: ["none"])
        example.mtlsEndpointAliases = MTLSEndpointAliases(baseURL: "https://umfa.example:9443", issuerPath: "/oidc/x")
        example.acrValuesSupported = ["urn:umfa:acr:presence", "urn:umfa:acr:passkey", "urn:umfa:acr:attested"]
        example.authorizationDetailsTypesSupported = ["payment_initiation"]
        return example
    }()
}

/// The UserInfo answer (OpenID Connect Core §5.3.2): `sub` and the claims of the scopes the
/// access token carries.
public struct UserinfoResponse: ContractBody, Equatable {
    /// The user.
    public var sub: String
    /// `email` scope.
    public var email: String?
    /// `email` scope.
    public var emailVerified: Bool?
    /// `profile` scope: given and family name together.
    public var name: String?
    /// `profile` scope.
    public var givenName: String?
    /// `profile` scope.
    public var familyName: String?
    /// `profile` scope: when the profile last changed, seconds since 1970.
    public var updatedAt: Int?
    /// `phone` scope.
    public var phoneNumber: String?
    /// `phone` scope.
    public var phoneNumberVerified: Bool?

    /// Creates an answer.
    public init(
        sub: String, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil, givenName: String? = nil,
        familyName: String? = nil, updatedAt: Int? = nil, phoneNumber: String? = nil, phoneNumberVerified: Bool? = nil
    ) {
        self.sub = sub
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.updatedAt = updatedAt
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
    }

    enum CodingKeys: String, CodingKey {
        case sub, email, name
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case updatedAt = "updated_at"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
    }

    /// An example with every member.
    public static let example = UserinfoResponse(
        sub: "3d5c7a0e-8f1b-4c2d-9e3f-4a5b6c7d8e9f", email: "alice@example.com", emailVerified: false,
        name: "Alice Example", givenName: "Alice", familyName: "Example", updatedAt: 1_800_000_000,
        phoneNumber: "+15555550100", phoneNumberVerified: false)
}

// MARK: - openapi.yaml

extension AuthorizationServerMetadata: DocumentedFields {
    static let schemaDescription: String? =
        "RFC 8414 metadata, also the OpenID Connect discovery document; it lists only what is served"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .issuer: .plain
        case .authorizationEndpoint: .plain
        case .tokenEndpoint: .plain
        case .userinfoEndpoint: .plain
        case .endSessionEndpoint: .plain
        case .jwksURI: .plain
        case .introspectionEndpoint: .plain
        case .revocationEndpoint: .plain
        case .pushedAuthorizationRequestEndpoint: .plain
        case .registrationEndpoint: FieldDoc("RFC 7591 dynamic client registration (needs an initial access token)")
        case .deviceAuthorizationEndpoint: FieldDoc("RFC 8628 §3.1 device authorization (docs/device-grant.md)")
        case .requirePushedAuthorizationRequests: .plain
        case .scopesSupported: .plain
        case .responseTypesSupported: .plain
        case .responseModesSupported: .plain
        case .grantTypesSupported: .plain
        case .tokenEndpointAuthMethodsSupported: .plain
        case .introspectionEndpointAuthMethodsSupported: .plain
        case .revocationEndpointAuthMethodsSupported: .plain
        case .codeChallengeMethodsSupported: .plain
        case .idTokenSigningAlgValuesSupported: .plain
        case .subjectTypesSupported: .plain
        case .claimsSupported: .plain
        case .promptValuesSupported: .plain
        case .authorizationResponseIssParameterSupported: .plain
        case .dpopSigningAlgValuesSupported: FieldDoc("RFC 9449: the algorithms DPoP proofs may use")
        case .tlsClientCertificateBoundAccessTokens:
            FieldDoc("RFC 8705 §3.3: true; access tokens can be bound to the client's TLS certificate")
        case .backchannelLogoutSupported:
            FieldDoc("OpenID Connect Back-Channel Logout 1.0: true; logout tokens go to backchannel_logout_uri")
        case .backchannelLogoutSessionSupported: FieldDoc("Back-Channel Logout 1.0: true; logout tokens carry sid")
        case .requestParameterSupported:
            FieldDoc("RFC 9101: true; the authorization and PAR endpoints take a signed request object")
        case .requestObjectSigningAlgValuesSupported: FieldDoc("RFC 9101: the algorithms of request objects")
        case .acrValuesSupported:
            FieldDoc("UMFA's authentication context classes, from the weakest (docs/oidc-provider.md)")
        case .claimsParameterSupported: FieldDoc("OpenID Connect Core §5.5: true; the claims request parameter")
        case .backchannelAuthenticationEndpoint: FieldDoc("OpenID CIBA Core 1.0 §7 (docs/ciba.md)")
        case .backchannelTokenDeliveryModesSupported: FieldDoc("CIBA Core §4: poll and ping")
        case .backchannelUserCodeParameterSupported: FieldDoc("CIBA Core §4: false")
        case .authorizationDetailsTypesSupported:
            FieldDoc("RFC 9396 §10: the application's authorization_details_types setting")
        case .mtlsEndpointAliases:
            .written([
                "type": "object",
                "description":
                    "RFC 8705 §5: the endpoints on the mutual-TLS listener (umfa serve --mtls-port), which asks for a client certificate; absent without that listener",
                "required": [
                    "token_endpoint", "pushed_authorization_request_endpoint", "introspection_endpoint",
                    "revocation_endpoint", "userinfo_endpoint",
                ],
                "properties": [
                    "token_endpoint": ["type": "string"], "pushed_authorization_request_endpoint": ["type": "string"],
                    "introspection_endpoint": ["type": "string"], "revocation_endpoint": ["type": "string"],
                    "userinfo_endpoint": ["type": "string"], "device_authorization_endpoint": ["type": "string"],
                    "backchannel_authentication_endpoint": ["type": "string"],
                ],
            ])
        }
    }
}

extension PushedAuthorizationResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .requestURI: FieldDoc("urn:ietf:params:oauth:request_uri:..., single use")
        case .expiresIn: FieldDoc("Seconds (60)")
        }
    }
}

extension UserinfoResponse: DocumentedFields {
    static let schemaDescription: String? = "OpenID Connect Core §5.3.2, the claims of the access token's scopes"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .sub: .plain
        case .email: .plain
        case .name: .plain
        case .emailVerified: .plain
        case .givenName: .plain
        case .familyName: .plain
        case .updatedAt: .plain
        case .phoneNumber: .plain
        case .phoneNumberVerified: .plain
        }
    }
}

extension OAuthTokenResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .accessToken:
            FieldDoc(
                "A JWT per RFC 9068 (typ at+jwt); a user's token also carries credential_id, the passkey that signed in, and is refused once that passkey is deleted"
            )
        case .tokenType: FieldDoc(nil, .enumeration(["Bearer"]))
        case .expiresIn: .plain
        case .scope: .plain
        case .refreshToken: .plain
        case .idToken: .plain
        case .authorizationDetails:
            .written([
                "type": "array", "items": ["type": "object", "required": ["type"]],
                "description": "RFC 9396 §7: the authorization_details the person authorized, as requested",
            ])
        }
    }
}

extension IntrospectionResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .active: .plain
        case .scope: .plain
        case .sub: .plain
        case .exp: .plain
        case .iat: .plain
        case .iss: .plain
        case .aud: .plain
        case .jti: .plain
        case .cnf:
            .written([
                "type": "object",
                "description":
                    "What a bound token is bound to: the DPoP key (RFC 9449 §6.2), the TLS client certificate (RFC 8705 §3.2), or both",
                "properties": [
                    "jkt": ["type": "string", "description": "RFC 7638 thumbprint of the DPoP key"],
                    "x5t#S256": [
                        "type": "string",
                        "description": "RFC 8705 §3.1: base64url SHA-256 of the DER client certificate",
                    ],
                ],
            ])
        case .clientID: .plain
        case .authTime: FieldDoc("A user's token: when the user signed in, seconds since 1970 (RFC 9470 §4)")
        case .acr: FieldDoc("A user's token: the authentication context class reached (docs/oidc-provider.md)")
        case .authorizationDetails:
            .written([
                "type": "array", "items": ["type": "object", "required": ["type"]],
                "description": "RFC 9396 §9.2: a user's token: the authorization_details the person authorized",
            ])
        case .tokenType: .plain
        }
    }
}

extension OAuthErrorResponse: DocumentedFields {
    static let schemaDescription: String? = "RFC 6749 §5.2 error, with UMFA's trace id"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .error: .plain
        case .errorDescription: .plain
        case .traceID: .ref(.echoedTraceID)
        }
    }
}
