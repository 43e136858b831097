import UMFAEncoding

/// `POST /api/admin/applications/{id}/oauth-clients` and `PATCH …/oauth-clients/{client_id}`:
/// a client's settings in RFC 7591 names plus UMFA's own. On create, absent members take their
/// defaults; on update, absent members keep their value.
public struct OAuthClientRequest: ContractBody, Equatable {
    /// `client_name`.
    public var clientName: String?
    /// `redirect_uris`, matched exactly (https, loopback http, or a private-use scheme).
    public var redirectURIs: [String]?
    /// `grant_types`: `authorization_code`, `refresh_token`, `client_credentials`.
    public var grantTypes: [String]?
    /// `response_types`: `code`.
    public var responseTypes: [String]?
    /// `token_endpoint_auth_method`: `none`, `client_secret_basic` (default), `client_secret_post`.
    public var tokenEndpointAuthMethod: String?
    /// `scope`: the space-separated scopes the client may ask for.
    public var scope: String?
    /// `post_logout_redirect_uris`.
    public var postLogoutRedirectURIs: [String]?
    /// `first_party`: no consent screen.
    public var firstParty: Bool?
    /// `access_token_ttl_seconds` (60–86400, default 600).
    public var accessTokenTTLSeconds: Int?
    /// `refresh_token_ttl_seconds` (60–31536000, default 2592000).
    public var refreshTokenTTLSeconds: Int?
    /// `jwks`: the client's public keys, a JWK Set (`private_key_jwt`, RFC 7523).
    public var jwks: JSONValue?
    /// `dcr_template`: the client may get scope `dcr` by `client_credentials` and register
    /// clients that copy its settings (docs/contract.md §5); it must be confidential.
    public var dcrTemplate: Bool?
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2): every access token must be DPoP-bound.
    public var dpopBoundAccessTokens: Bool?
    /// `require_pushed_authorization_requests` (RFC 9126 §6): authorization only through PAR.
    public var requirePushedAuthorizationRequests: Bool?
    /// `attestation_required`: a public client gets an API-flow token only with a client
    /// attestation (docs/contract.md §6).
    public var attestationRequired: Bool?
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

    /// Creates a request.
    public init(
        clientName: String? = nil, redirectURIs: [String]? = nil, grantTypes: [String]? = nil,
        responseTypes: [String]? = nil, tokenEndpointAuthMethod: String? = nil, scope: String? = nil,
        postLogoutRedirectURIs: [String]? = nil, firstParty: Bool? = nil, accessTokenTTLSeconds: Int? = nil,
        refreshTokenTTLSeconds: Int? = nil, requirePushedAuthorizationRequests: Bool? = nil
    ) {
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.scope = scope
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.firstParty = firstParty
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.refreshTokenTTLSeconds = refreshTokenTTLSeconds
    }

    enum CodingKeys: String, CodingKey {
        case clientName = "client_name"
        case redirectURIs = "redirect_uris"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case scope
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case firstParty = "first_party"
        case accessTokenTTLSeconds = "access_token_ttl_seconds"
        case refreshTokenTTLSeconds = "refresh_token_ttl_seconds"
        case jwks
        case dcrTemplate = "dcr_template"
        case dpopBoundAccessTokens = "dpop_bound_access_tokens"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case attestationRequired = "attestation_required"
        case tlsClientAuthSubjectDN = "tls_client_auth_subject_dn"
        case tlsClientAuthSANDNS = "tls_client_auth_san_dns"
        case tlsClientAuthSANURI = "tls_client_auth_san_uri"
        case tlsClientAuthSANIP = "tls_client_auth_san_ip"
        case tlsClientAuthSANEmail = "tls_client_auth_san_email"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
    }

    /// An example with every member.
    public static let example: OAuthClientRequest = {
        var request = OAuthClientRequest(
            clientName: "Shop", redirectURIs: ["https://shop.example/callback"],
            grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
            tokenEndpointAuthMethod: "client_secret_basic", scope: "openid profile email",
            postLogoutRedirectURIs: ["https://shop.example/"], firstParty: true, accessTokenTTLSeconds: 600,
            refreshTokenTTLSeconds: 2_592_000)
        request.jwks = .object(["keys": .array([])])
        request.dcrTemplate = false
        request.dpopBoundAccessTokens = false
        request.requirePushedAuthorizationRequests = false
        request.attestationRequired = false
        request.tlsClientAuthSubjectDN = "CN=shop,O=Shop"
        request.tlsClientAuthSANDNS = "shop.example"
        request.tlsClientAuthSANURI = "https://shop.example"
        request.tlsClientAuthSANIP = "192.0.2.7"
        request.tlsClientAuthSANEmail = "ops@shop.example"
        request.tlsClientCertificateBoundAccessTokens = false
        return request
    }()
}

/// One OAuth client as the admin API shows it (never its secret).
public struct OAuthClientView: Codable, Sendable, Equatable {
    /// `client_id`.
    public var clientID: String
    /// The application (issuer) it belongs to.
    public var applicationID: String
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
    /// `scope`, space-separated.
    public var scope: String
    /// `post_logout_redirect_uris`.
    public var postLogoutRedirectURIs: [String]
    /// `first_party`.
    public var firstParty: Bool
    /// `access_token_ttl_seconds`.
    public var accessTokenTTLSeconds: Int
    /// `refresh_token_ttl_seconds`.
    public var refreshTokenTTLSeconds: Int
    /// When it was registered (RFC 3339).
    public var createdAt: String
    /// `require_pushed_authorization_requests` (RFC 9126 §6).
    public var requirePushedAuthorizationRequests: Bool
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2): every access token must be DPoP-bound.
    public var dpopBoundAccessTokens: Bool
    /// `jwks`: the client's public keys (`private_key_jwt`), when it registered some.
    public var jwks: JSONValue?
    /// `dcr_template`: a template for dynamic registration.
    public var dcrTemplate: Bool
    /// `software_id`: the template a dynamically registered client was made from.
    public var softwareID: String?
    /// `attestation_required`.
    public var attestationRequired: Bool
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

    /// Creates a view.
    public init(
        clientID: String, applicationID: String, clientName: String, redirectURIs: [String], grantTypes: [String],
        responseTypes: [String], tokenEndpointAuthMethod: String, scope: String, postLogoutRedirectURIs: [String],
        firstParty: Bool, accessTokenTTLSeconds: Int, refreshTokenTTLSeconds: Int, createdAt: String,
        requirePushedAuthorizationRequests: Bool = false, dpopBoundAccessTokens: Bool = false, jwks: JSONValue? = nil,
        dcrTemplate: Bool = false, softwareID: String? = nil, attestationRequired: Bool = false
    ) {
        self.attestationRequired = attestationRequired
        self.dcrTemplate = dcrTemplate
        self.softwareID = softwareID
        self.jwks = jwks
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.dpopBoundAccessTokens = dpopBoundAccessTokens
        self.clientID = clientID
        self.applicationID = applicationID
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.scope = scope
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.firstParty = firstParty
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.refreshTokenTTLSeconds = refreshTokenTTLSeconds
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case applicationID = "application_id"
        case clientName = "client_name"
        case redirectURIs = "redirect_uris"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case scope
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case firstParty = "first_party"
        case accessTokenTTLSeconds = "access_token_ttl_seconds"
        case refreshTokenTTLSeconds = "refresh_token_ttl_seconds"
        case createdAt = "created_at"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopBoundAccessTokens = "dpop_bound_access_tokens"
        case jwks
        case dcrTemplate = "dcr_template"
        case softwareID = "software_id"
        case attestationRequired = "attestation_required"
        case tlsClientAuthSubjectDN = "tls_client_auth_subject_dn"
        case tlsClientAuthSANDNS = "tls_client_auth_san_dns"
        case tlsClientAuthSANURI = "tls_client_auth_san_uri"
        case tlsClientAuthSANIP = "tls_client_auth_san_ip"
        case tlsClientAuthSANEmail = "tls_client_auth_san_email"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
    }

    static let example = OAuthClientView(
        clientID: "umfa_ci_x", applicationID: Examples.applicationID, clientName: "Shop",
        redirectURIs: ["https://shop.example/callback"], grantTypes: ["authorization_code"], responseTypes: ["code"],
        tokenEndpointAuthMethod: "client_secret_basic", scope: "openid", postLogoutRedirectURIs: [],
        firstParty: true, accessTokenTTLSeconds: 600, refreshTokenTTLSeconds: 2_592_000, createdAt: Examples.time,
        jwks: .object(["keys": .array([])]), softwareID: "umfa_ci_template"
    ).withTLSExample()

    /// The example with every optional RFC 8705 member.
    private func withTLSExample() -> OAuthClientView {
        var view = self
        view.tlsClientAuthSubjectDN = "CN=shop,O=Shop"
        view.tlsClientAuthSANDNS = "shop.example"
        view.tlsClientAuthSANURI = "https://shop.example"
        view.tlsClientAuthSANIP = "192.0.2.7"
        view.tlsClientAuthSANEmail = "ops@shop.example"
        return view
    }
}

/// A client answer of the admin API: the client's members at the top level (as RFC 7591's
/// registration response has them), the trace id, and the `client_secret` once, when it was
/// just made (creation of a confidential client, secret rotation).
public struct OAuthClientResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The client.
    public var client: OAuthClientView
    /// The secret, shown only when it was just made.
    public var clientSecret: String?

    /// Creates an answer.
    public init(traceID: String, client: OAuthClientView, clientSecret: String? = nil) {
        self.traceID = traceID
        self.client = client
        self.clientSecret = clientSecret
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case clientSecret = "client_secret"
    }

    /// Decodes the flat object.
    public init(from decoder: any Decoder) throws {
        client = try OAuthClientView(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        traceID = try container.decode(String.self, forKey: .traceID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try client.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(traceID, forKey: .traceID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
    }

    /// An example with every member.
    public static let example = OAuthClientResponse(
        traceID: Examples.traceID, client: .example, clientSecret: "umfa_cs_x")
}

/// `GET /api/admin/applications/{id}/oauth-clients`: `{trace_id, clients}`.
public struct OAuthClientListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The application's clients, oldest first.
    public var clients: [OAuthClientView]

    /// Creates an answer.
    public init(traceID: String, clients: [OAuthClientView]) {
        self.traceID = traceID
        self.clients = clients
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case clients
    }

    /// An example with every member.
    public static let example = OAuthClientListResponse(traceID: Examples.traceID, clients: [.example])
}
