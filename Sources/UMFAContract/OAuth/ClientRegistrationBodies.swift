import UMFAEncoding

/// `POST /api/admin/applications/{id}/initial-access-tokens`: a token that lets a client register
/// itself at the issuer's `registration_endpoint` (RFC 7591 §3).
public struct InitialAccessTokenRequest: ContractBody, Equatable {
    /// `ttl_seconds`: how long it works (60–2592000, default 86400).
    public var ttlSeconds: Int?
    /// `uses`: how many clients it may register (1–1000, default 1).
    public var uses: Int?
    /// `scope`: the space-separated scopes a client registered with it may ask for, in place of
    /// the application's `allowed_scopes` (a registration from a template takes the template's).
    public var scope: String?

    /// Creates a request.
    public init(ttlSeconds: Int? = nil, uses: Int? = nil, scope: String? = nil) {
        self.ttlSeconds = ttlSeconds
        self.uses = uses
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey {
        case ttlSeconds = "ttl_seconds"
        case uses, scope
    }

    /// An example with every member.
    public static let example = InitialAccessTokenRequest(ttlSeconds: 3600, uses: 5, scope: "openid profile")
}

/// The answer to ``InitialAccessTokenRequest``: the token, shown this once (stored as SHA-256).
public struct InitialAccessTokenResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The token, for `Authorization: Bearer` at the registration endpoint.
    public var initialAccessToken: String
    /// When it stops working (RFC 3339).
    public var expiresAt: String
    /// How many clients it may register.
    public var uses: Int

    /// Creates an answer.
    public init(traceID: String, initialAccessToken: String, expiresAt: String, uses: Int) {
        self.traceID = traceID
        self.initialAccessToken = initialAccessToken
        self.expiresAt = expiresAt
        self.uses = uses
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case initialAccessToken = "initial_access_token"
        case expiresAt = "expires_at"
        case uses
    }

    /// An example with every member.
    public static let example = InitialAccessTokenResponse(
        traceID: Examples.traceID, initialAccessToken: "umfa_iat_x", expiresAt: Examples.time, uses: 5)
}

/// The client metadata of a registration (RFC 7591 §2) or of an update (RFC 7592 §2.2, which
/// also names the `client_id`). Members UMFA does not know are ignored, as RFC 7591 §2 asks;
/// `jwks_uri` and `software_statement` are known and refused (UMFA takes `jwks` by value and has
/// no software statement issuer).
public struct ClientRegistrationRequest: ContractBody, Equatable {
    /// `client_id`: only in an update, where it must be the client's own.
    public var clientID: String?
    /// `client_secret`: only in an update; when present it must be the client's current secret.
    public var clientSecret: String?
    /// `client_name`.
    public var clientName: String?
    /// `redirect_uris`: https, http on a loopback address, or a private-use scheme (RFC 8252).
    public var redirectURIs: [String]?
    /// `grant_types`.
    public var grantTypes: [String]?
    /// `response_types`.
    public var responseTypes: [String]?
    /// `token_endpoint_auth_method`.
    public var tokenEndpointAuthMethod: String?
    /// `scope`.
    public var scope: String?
    /// `post_logout_redirect_uris`.
    public var postLogoutRedirectURIs: [String]?
    /// `jwks`: the client's public keys (`private_key_jwt`).
    public var jwks: JSONValue?
    /// `jwks_uri`: refused (send `jwks`).
    public var jwksURI: String?
    /// `software_id`: the `client_id` of the `dcr_template` client whose settings to copy.
    public var softwareID: String?
    /// `software_version`: accepted and not kept.
    public var softwareVersion: String?
    /// `software_statement`: refused.
    public var softwareStatement: String?
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2).
    public var dpopBoundAccessTokens: Bool?
    /// `tls_client_auth_subject_dn` (RFC 8705 §2.1.2): the RFC 4514 subject DN a
    /// `tls_client_auth` client's certificate must have; or exactly one of the SAN members below.
    public var tlsClientAuthSubjectDN: String?
    /// `tls_client_auth_san_dns` (RFC 8705 §2.1.2): a dNSName SAN of the certificate.
    public var tlsClientAuthSANDNS: String?
    /// `tls_client_auth_san_uri` (RFC 8705 §2.1.2): a uniformResourceIdentifier SAN.
    public var tlsClientAuthSANURI: String?
    /// `tls_client_auth_san_ip` (RFC 8705 §2.1.2): an iPAddress SAN (IPv4 or IPv6 text).
    public var tlsClientAuthSANIP: String?
    /// `tls_client_auth_san_email` (RFC 8705 §2.1.2): an rfc822Name SAN.
    public var tlsClientAuthSANEmail: String?
    /// `tls_client_certificate_bound_access_tokens` (RFC 8705 §3.4): access tokens bound to the
    /// client certificate (`cnf.x5t#S256`).
    public var tlsClientCertificateBoundAccessTokens: Bool?
    /// `require_pushed_authorization_requests` (RFC 9126 §6): the client starts authorization
    /// requests only through PAR.
    public var requirePushedAuthorizationRequests: Bool?

    /// Creates a request.
    public init(
        clientName: String? = nil, redirectURIs: [String]? = nil, grantTypes: [String]? = nil,
        responseTypes: [String]? = nil, tokenEndpointAuthMethod: String? = nil, scope: String? = nil,
        softwareID: String? = nil
    ) {
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.scope = scope
        self.softwareID = softwareID
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientName = "client_name"
        case redirectURIs = "redirect_uris"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case scope
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case jwks
        case jwksURI = "jwks_uri"
        case softwareID = "software_id"
        case softwareVersion = "software_version"
        case softwareStatement = "software_statement"
        case dpopBoundAccessTokens = "dpop_bound_access_tokens"
        case tlsClientAuthSubjectDN = "tls_client_auth_subject_dn"
        case tlsClientAuthSANDNS = "tls_client_auth_san_dns"
        case tlsClientAuthSANURI = "tls_client_auth_san_uri"
        case tlsClientAuthSANIP = "tls_client_auth_san_ip"
        case tlsClientAuthSANEmail = "tls_client_auth_san_email"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
    }

    /// An example with every member.
    public static let example: ClientRegistrationRequest = {
        var request = ClientRegistrationRequest(
            clientName: "Shop for iOS", redirectURIs: ["com.example.shop:/callback"],
            grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "none", scope: "openid email", softwareID: "umfa_ci_template")
        request.clientID = "umfa_ci_x"
        request.clientSecret = "umfa_cs_x"
        request.postLogoutRedirectURIs = ["com.example.shop:/signed-out"]
        request.jwks = .object(["keys": .array([])])
        request.jwksURI = "https://shop.example/jwks"
        request.softwareVersion = "1.0"
        request.softwareStatement = "eyJ..."
        request.dpopBoundAccessTokens = true
        request.tlsClientAuthSubjectDN = "CN=shop,O=Shop"
        request.tlsClientAuthSANDNS = "shop.example"
        request.tlsClientAuthSANURI = "https://shop.example"
        request.tlsClientAuthSANIP = "192.0.2.7"
        request.tlsClientAuthSANEmail = "ops@shop.example"
        request.tlsClientCertificateBoundAccessTokens = true
        request.requirePushedAuthorizationRequests = true
        return request
    }()
}

/// A registered client as RFC 7591 §3.2.1 and RFC 7592 §3 answer it: its metadata, its
/// `client_id`, and — at registration only — its `client_secret` and `registration_access_token`
/// (both stored as SHA-256, so never shown again).
public struct ClientRegistrationResponse: ContractBody, Equatable {
    /// `client_id`.
    public var clientID: String
    /// `client_secret`, at registration of a confidential client.
    public var clientSecret: String?
    /// `client_id_issued_at`, seconds since 1970.
    public var clientIDIssuedAt: Int
    /// `client_secret_expires_at`: 0 (the secret does not expire), with a secret.
    public var clientSecretExpiresAt: Int?
    /// `registration_access_token` (RFC 7592), at registration.
    public var registrationAccessToken: String?
    /// `registration_client_uri` (RFC 7592): read, update and delete the client there.
    public var registrationClientURI: String
    /// `client_name`.
    public var clientName: String
    /// `redirect_uris`.
    public var redirectURIs: [String]
    /// `grant_types`.
    public var grantTypes: [String]
    /// `response_types`.
    public var responseTypes: [String]
    /// `token_endpoint_auth_method`.
    public var tokenEndpointAuthMethod: String
    /// `scope`.
    public var scope: String
    /// `post_logout_redirect_uris`.
    public var postLogoutRedirectURIs: [String]
    /// `jwks`, when the client registered keys.
    public var jwks: JSONValue?
    /// `software_id`: the template the client was made from.
    public var softwareID: String?
    /// `dpop_bound_access_tokens`.
    public var dpopBoundAccessTokens: Bool
    /// `tls_client_auth_subject_dn` (RFC 8705 §2.1.2): the RFC 4514 subject DN a
    /// `tls_client_auth` client's certificate must have; or exactly one of the SAN members below.
    public var tlsClientAuthSubjectDN: String?
    /// `tls_client_auth_san_dns` (RFC 8705 §2.1.2): a dNSName SAN of the certificate.
    public var tlsClientAuthSANDNS: String?
    /// `tls_client_auth_san_uri` (RFC 8705 §2.1.2): a uniformResourceIdentifier SAN.
    public var tlsClientAuthSANURI: String?
    /// `tls_client_auth_san_ip` (RFC 8705 §2.1.2): an iPAddress SAN (IPv4 or IPv6 text).
    public var tlsClientAuthSANIP: String?
    /// `tls_client_auth_san_email` (RFC 8705 §2.1.2): an rfc822Name SAN.
    public var tlsClientAuthSANEmail: String?
    /// `tls_client_certificate_bound_access_tokens` (RFC 8705 §3.4): access tokens bound to the
    /// client certificate (`cnf.x5t#S256`).
    public var tlsClientCertificateBoundAccessTokens = false
    /// `require_pushed_authorization_requests` (RFC 9126 §6): the client must start its
    /// authorization requests through PAR.
    public var requirePushedAuthorizationRequests = false

    /// Creates an answer.
    public init(
        clientID: String, clientIDIssuedAt: Int, registrationClientURI: String, clientName: String,
        redirectURIs: [String], grantTypes: [String], responseTypes: [String], tokenEndpointAuthMethod: String,
        scope: String, postLogoutRedirectURIs: [String], dpopBoundAccessTokens: Bool
    ) {
        self.clientID = clientID
        self.clientIDIssuedAt = clientIDIssuedAt
        self.registrationClientURI = registrationClientURI
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.scope = scope
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.dpopBoundAccessTokens = dpopBoundAccessTokens
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientIDIssuedAt = "client_id_issued_at"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
        case clientName = "client_name"
        case redirectURIs = "redirect_uris"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case scope
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case jwks
        case softwareID = "software_id"
        case dpopBoundAccessTokens = "dpop_bound_access_tokens"
        case tlsClientAuthSubjectDN = "tls_client_auth_subject_dn"
        case tlsClientAuthSANDNS = "tls_client_auth_san_dns"
        case tlsClientAuthSANURI = "tls_client_auth_san_uri"
        case tlsClientAuthSANIP = "tls_client_auth_san_ip"
        case tlsClientAuthSANEmail = "tls_client_auth_san_email"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
    }

    /// An example with every member.
    public static let example: ClientRegistrationResponse = {
        var response = ClientRegistrationResponse(
            clientID: "umfa_ci_x", clientIDIssuedAt: 1_795_000_000,
            registrationClientURI: "https://umfa.example/oidc/x/register/umfa_ci_x", clientName: "Shop for iOS",
            redirectURIs: ["com.example.shop:/callback"], grantTypes: ["authorization_code"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "client_secret_basic", scope: "openid", postLogoutRedirectURIs: [],
            dpopBoundAccessTokens: false)
        response.clientSecret = "umfa_cs_x"
        response.clientSecretExpiresAt = 0
        response.registrationAccessToken = "umfa_rat_x"
        response.jwks = .object(["keys": .array([])])
        response.softwareID = "umfa_ci_template"
        response.tlsClientAuthSubjectDN = "CN=shop,O=Shop"
        response.tlsClientAuthSANDNS = "shop.example"
        response.tlsClientAuthSANURI = "https://shop.example"
        response.tlsClientAuthSANIP = "192.0.2.7"
        response.tlsClientAuthSANEmail = "ops@shop.example"
        return response
    }()
}
