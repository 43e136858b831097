import Foundation
import UMFAEncoding

/// An OAuth client's settings: the client metadata of RFC 7591 §2 (with the members RFC 8705,
/// RFC 9126, RFC 9449 and OpenID Connect RP-Initiated Logout add) and UMFA's own.
///
/// This one value is what the admin API takes and shows, what dynamic registration (RFC 7591)
/// and its management (RFC 7592) take and answer, what the server stores as the client's
/// settings document, and what the command-line tool sends. Every member is optional: in a
/// request an absent member takes its default (on create) or keeps its value (on update); in an
/// answer every member the client has is present. Which caller may set a member is ``Member/origin``.
public struct ClientMetadata: ContractBody, Equatable, Hashable {
    /// `client_name`.
    public var clientName: String?
    /// `redirect_uris`, matched exactly: https, http on a loopback address, or a private-use
    /// scheme (RFC 8252 §7).
    public var redirectURIs: [String]?
    /// `grant_types`: `authorization_code`, `refresh_token`, `client_credentials`.
    public var grantTypes: [String]?
    /// `response_types`: `code` (with `authorization_code`).
    public var responseTypes: [String]?
    /// `token_endpoint_auth_method`: `none`, `client_secret_basic` (default), `client_secret_post`,
    /// `client_secret_jwt`, `private_key_jwt`, `tls_client_auth`, `self_signed_tls_client_auth`.
    public var tokenEndpointAuthMethod: String?
    /// `scope`: the space-separated scopes the client may ask for.
    public var scope: String?
    /// `post_logout_redirect_uris` (OpenID Connect RP-Initiated Logout §3.1).
    public var postLogoutRedirectURIs: [String]?
    /// `jwks`: the client's public keys, a JWK Set (`private_key_jwt`, RFC 7523; the certificates
    /// of `self_signed_tls_client_auth`, RFC 8705 §2.2).
    public var jwks: JSONValue?
    /// `software_id`: the `client_id` of the `dcr_template` client a registered client copies.
    public var softwareID: String?
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2): every access token must be DPoP-bound.
    public var dpopBoundAccessTokens: Bool?
    /// `require_pushed_authorization_requests` (RFC 9126 §6): authorization only through PAR.
    public var requirePushedAuthorizationRequests: Bool?
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
    /// `first_party`: no consent screen.
    public var firstParty: Bool?
    /// `access_token_ttl_seconds` (60–86400, default 600).
    public var accessTokenTTLSeconds: Int?
    /// `refresh_token_ttl_seconds` (60–31536000, default 2592000).
    public var refreshTokenTTLSeconds: Int?
    /// `dcr_template`: the client may get scope `dcr` by `client_credentials` and register
    /// clients that copy its settings (docs/contract.md §5); it must be confidential.
    public var dcrTemplate: Bool?
    /// `attestation_required`: a public client gets an API-flow token only with a client
    /// attestation (docs/contract.md §6).
    public var attestationRequired: Bool?
    /// `backchannel_logout_uri` (OpenID Connect Back-Channel Logout 1.0 §2.2): where the client
    /// takes logout tokens; https, or http on a loopback address.
    public var backchannelLogoutURI: String?
    /// `backchannel_logout_session_required`: the client needs `sid` in logout tokens (UMFA's
    /// always carry it when the sign-in had a session).
    public var backchannelLogoutSessionRequired: Bool?
    /// `require_signed_request_object` (RFC 9101 §10.5): the client's authorization requests
    /// (and pushed ones) must come as a signed request object.
    public var requireSignedRequestObject: Bool?
    /// `subject_type` (OpenID Connect Core §8): `public` (the default: `sub` is the user id) or
    /// `pairwise` (a `sub` of the client's sector alone, docs/oidc-provider.md).
    public var subjectType: String?
    /// `sector_identifier_uri` (OpenID Connect Registration 1.0 §2, §5): an https URL of a JSON
    /// array holding every redirect URI of the client; its host is the pairwise sector.
    public var sectorIdentifierURI: String?
    /// `backchannel_token_delivery_mode` (OpenID CIBA Core 1.0 §4): `poll` (the default for a
    /// client registered for the CIBA grant) or `ping`.
    public var backchannelTokenDeliveryMode: String?
    /// `backchannel_client_notification_endpoint` (CIBA Core §4): where a ping-mode client is
    /// told a request ended; https, or http on a loopback address.
    public var backchannelClientNotificationEndpoint: String?

    /// Creates a value; every member left out is absent.
    public init(
        clientName: String? = nil, redirectURIs: [String]? = nil, grantTypes: [String]? = nil,
        responseTypes: [String]? = nil, tokenEndpointAuthMethod: String? = nil, scope: String? = nil,
        postLogoutRedirectURIs: [String]? = nil, firstParty: Bool? = nil, accessTokenTTLSeconds: Int? = nil,
        refreshTokenTTLSeconds: Int? = nil, requirePushedAuthorizationRequests: Bool? = nil,
        softwareID: String? = nil, jwks: JSONValue? = nil, dpopBoundAccessTokens: Bool? = nil,
        dcrTemplate: Bool? = nil, attestationRequired: Bool? = nil
    ) {
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
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.softwareID = softwareID
        self.jwks = jwks
        self.dpopBoundAccessTokens = dpopBoundAccessTokens
        self.dcrTemplate = dcrTemplate
        self.attestationRequired = attestationRequired
    }

    /// The members, by their wire names: the only place those names are written. Members a
    /// value does not know are ignored when it is decoded (RFC 7591 §2).
    public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
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
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case tlsClientAuthSubjectDN = "tls_client_auth_subject_dn"
        case tlsClientAuthSANDNS = "tls_client_auth_san_dns"
        case tlsClientAuthSANURI = "tls_client_auth_san_uri"
        case tlsClientAuthSANIP = "tls_client_auth_san_ip"
        case tlsClientAuthSANEmail = "tls_client_auth_san_email"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        case firstParty = "first_party"
        case accessTokenTTLSeconds = "access_token_ttl_seconds"
        case refreshTokenTTLSeconds = "refresh_token_ttl_seconds"
        case dcrTemplate = "dcr_template"
        case attestationRequired = "attestation_required"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case backchannelLogoutSessionRequired = "backchannel_logout_session_required"
        case requireSignedRequestObject = "require_signed_request_object"
        case subjectType = "subject_type"
        case sectorIdentifierURI = "sector_identifier_uri"
        case backchannelTokenDeliveryMode = "backchannel_token_delivery_mode"
        case backchannelClientNotificationEndpoint = "backchannel_client_notification_endpoint"

        /// The wire name, as messages that name the member print it.
        public var description: String { stringValue }

        /// Who may set the member in a request; a member a caller may not set is ignored in its
        /// request, as RFC 7591 §2 has a server do with metadata it does not take.
        public var origin: Origin {
            switch self {
            case .softwareID: .registration
            case .firstParty, .accessTokenTTLSeconds, .refreshTokenTTLSeconds, .dcrTemplate, .attestationRequired:
                .admin
            default: .anyone
            }
        }

        /// Whether every answer about a client carries the member (the admin API's views and
        /// RFC 7591 §3.2.1 / RFC 7592 §3 answers): all but the keys, the template and the
        /// certificate subject, which a client has only when they were set.
        public var isAlwaysAnswered: Bool {
            self != .jwks && self != .softwareID && !Self.certificateSubject.contains(self)
                && self != .backchannelLogoutURI && self != .backchannelLogoutSessionRequired
                && self != .requireSignedRequestObject && self != .subjectType && self != .sectorIdentifierURI
                && self != .backchannelTokenDeliveryMode && self != .backchannelClientNotificationEndpoint
        }

        /// The RFC 8705 §2.1.2 members that name a `tls_client_auth` client's certificate.
        public static let certificateSubject: [Member] = [
            .tlsClientAuthSubjectDN, .tlsClientAuthSANDNS, .tlsClientAuthSANURI, .tlsClientAuthSANIP,
            .tlsClientAuthSANEmail,
        ]
    }

    /// A member of the value, by its wire name.
    public typealias Member = CodingKeys

    /// Who may set a member.
    public enum Origin: Sendable {
        /// The admin API and a registering client alike.
        case anyone
        /// The admin API only (UMFA's own settings a self-registering client may not choose).
        case admin
        /// Dynamic registration only (`software_id` names the template to copy).
        case registration
    }

    /// Which caller a request comes from.
    public enum Caller: Sendable {
        /// `POST`/`PATCH …/oauth-clients` of the admin API.
        case admin
        /// The registration endpoint (RFC 7591) or a client's configuration endpoint (RFC 7592).
        case registration
    }

    /// Decodes the settings of an answer about a client, where every member that
    /// ``Member/isAlwaysAnswered`` must be present.
    public init(answerFrom decoder: any Decoder) throws {
        self = try ClientMetadata(from: decoder)
        try decoder.requireMembers(Member.allCases.filter(\.isAlwaysAnswered))
    }

    /// The value with the members `caller` may not set left out.
    public func accepted(from caller: Caller) -> ClientMetadata {
        var value = self
        for member in Member.allCases {
            switch (member.origin, caller) {
            case (.anyone, _), (.admin, .admin), (.registration, .registration): continue
            default: value.remove(member)
            }
        }
        return value
    }

    /// The value without `member`.
    public mutating func remove(_ member: Member) {
        guard let data = try? JSONEncoder().encode(self),
            var object = try? JSONDecoder().decode([String: JSONValue].self, from: data)
        else { return }
        object.removeValue(forKey: member.stringValue)
        if let data = try? JSONEncoder().encode(object),
            let value = try? JSONDecoder().decode(ClientMetadata.self, from: data)
        {
            self = value
        }
    }

    /// The certificate subject member a `tls_client_auth` client registered, with its value
    /// (RFC 8705 §2.1.2); `nil` when none is set.
    public var certificateSubject: (member: Member, value: String)? {
        for member in Member.certificateSubject {
            if let value = self[certificateSubject: member] { return (member, value) }
        }
        return nil
    }

    /// The value of one of the ``Member/certificateSubject`` members.
    public subscript(certificateSubject member: Member) -> String? {
        get {
            switch member {
            case .tlsClientAuthSubjectDN: tlsClientAuthSubjectDN
            case .tlsClientAuthSANDNS: tlsClientAuthSANDNS
            case .tlsClientAuthSANURI: tlsClientAuthSANURI
            case .tlsClientAuthSANIP: tlsClientAuthSANIP
            case .tlsClientAuthSANEmail: tlsClientAuthSANEmail
            default: nil
            }
        }
        set {
            switch member {
            case .tlsClientAuthSubjectDN: tlsClientAuthSubjectDN = newValue
            case .tlsClientAuthSANDNS: tlsClientAuthSANDNS = newValue
            case .tlsClientAuthSANURI: tlsClientAuthSANURI = newValue
            case .tlsClientAuthSANIP: tlsClientAuthSANIP = newValue
            case .tlsClientAuthSANEmail: tlsClientAuthSANEmail = newValue
            default: break
            }
        }
    }

    /// An example with every member.
    public static let example = ClientMetadata(
        clientName: "Shop", redirectURIs: ["https://shop.example/callback"],
        grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
        tokenEndpointAuthMethod: "client_secret_basic", scope: "openid profile email",
        postLogoutRedirectURIs: ["https://shop.example/"], firstParty: true, accessTokenTTLSeconds: 600,
        refreshTokenTTLSeconds: 2_592_000, requirePushedAuthorizationRequests: false, softwareID: "umfa_ci_template",
        jwks: .object(["keys": .array([])]), dpopBoundAccessTokens: false, dcrTemplate: false,
        attestationRequired: false
    ).withCertificateSubjectExample()

    /// The value with every RFC 8705 member set, as an example.
    private func withCertificateSubjectExample() -> ClientMetadata {
        var value = self
        value.tlsClientAuthSubjectDN = "CN=shop,O=Shop"
        value.tlsClientAuthSANDNS = "shop.example"
        value.tlsClientAuthSANURI = "https://shop.example"
        value.tlsClientAuthSANIP = "192.0.2.7"
        value.tlsClientAuthSANEmail = "ops@shop.example"
        value.tlsClientCertificateBoundAccessTokens = false
        return value
    }
}

/// A body that carries a client's ``ClientMetadata`` flat beside its own members; each setting
/// reads through it (`view.clientName`).
@dynamicMemberLookup
public protocol ClientMetadataCarrier {
    /// The client's settings.
    var metadata: ClientMetadata { get set }
}

extension ClientMetadataCarrier {
    /// A setting of the client.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ClientMetadata, Value>) -> Value {
        get { metadata[keyPath: keyPath] }
        set { metadata[keyPath: keyPath] = newValue }
    }
}

// MARK: - openapi.yaml

extension ClientMetadata: DocumentedFields {
    static let schemaName = "OAuthClientRequest"
    static let schemaDescription: String? =
        "A client's settings in RFC 7591 names plus UMFA's own; on create client_name is required and absent members take defaults, on update absent members keep their value"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .clientName: FieldDoc(nil, .minLength(1), .maxLength(200))
        case .redirectURIs: FieldDoc("Matched exactly: https, http on loopback, or a private-use scheme (RFC 8252)")
        case .grantTypes:
            FieldDoc(
                nil,
                .items([
                    "type": "string",
                    "enum": [
                        "authorization_code", "refresh_token", "client_credentials",
                        "urn:ietf:params:oauth:grant-type:device_code",
                    ],
                ]))
        case .responseTypes: FieldDoc(nil, .items(["type": "string", "enum": ["code"]]))
        case .tokenEndpointAuthMethod:
            FieldDoc(
                nil,
                .enumeration([
                    "none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                    "tls_client_auth", "self_signed_tls_client_auth",
                ]))
        case .scope: FieldDoc("Space-separated scopes the client may ask for")
        case .postLogoutRedirectURIs: .plain
        case .backchannelLogoutURI:
            FieldDoc(
                "OpenID Connect Back-Channel Logout 1.0: where logout tokens are POSTed when a session the client took part in ends; https, or http on a loopback address; a query is kept, no fragment"
            )
        case .backchannelLogoutSessionRequired:
            FieldDoc("The client needs sid in logout tokens; UMFA's carry sid and sub alike. Default false")
        case .requireSignedRequestObject:
            FieldDoc(
                "RFC 9101 §10.5: every authorization request (and pushed one) of the client is a request object signed with a key of its jwks; default false"
            )
        case .subjectType:
            FieldDoc(
                "OpenID Connect Core §8: public (default; sub is the user id) or pairwise (sub differs per sector: the host of sector_identifier_uri, else of the redirect URIs, which must then share one host)",
                .enumeration(["public", "pairwise"]))
        case .backchannelTokenDeliveryMode:
            FieldDoc(
                "OpenID CIBA Core 1.0 §4: poll (default for a client with the urn:openid:params:grant-type:ciba grant) or ping (needs backchannel_client_notification_endpoint)",
                .enumeration(["poll", "ping"]))
        case .backchannelClientNotificationEndpoint:
            FieldDoc(
                "CIBA Core §4: where a ping-mode client is told its request ended, with its client_notification_token as a bearer token; https (http only on a loopback address), no fragment; for a client that registered itself, only a public address"
            )
        case .sectorIdentifierURI:
            FieldDoc(
                "OpenID Connect Registration §5: an https URL of a JSON array of URIs that holds every redirect URI of the client; fetched at registration (no redirects, 5 s, 64 KiB; for a client that registered itself only from a public address); its host is the pairwise sector"
            )
        case .jwks:
            .written([
                "type": "object",
                "description":
                    "The client's public keys, a JWK Set of 1 to 10 RS256, ES256 or EdDSA keys; required for private_key_jwt",
            ])
        case .softwareID: FieldDoc("The template a dynamically registered client was made from")
        case .dpopBoundAccessTokens:
            FieldDoc("Every access token of the client must be DPoP-bound (RFC 9449 §5.2); default false")
        case .requirePushedAuthorizationRequests:
            FieldDoc("The client may start authorization only through PAR (RFC 9126); default false")
        case .tlsClientAuthSubjectDN:
            FieldDoc(
                "RFC 8705 §2.1.2: the RFC 4514 subject DN a tls_client_auth client's certificate must have (compared attribute by attribute, case and insignificant spaces ignored); a tls_client_auth client registers exactly one of this and the tls_client_auth_san_* members"
            )
        case .tlsClientAuthSANDNS: FieldDoc("RFC 8705 §2.1.2: a dNSName SAN the certificate must carry")
        case .tlsClientAuthSANURI:
            FieldDoc("RFC 8705 §2.1.2: a uniformResourceIdentifier SAN the certificate must carry")
        case .tlsClientAuthSANIP:
            FieldDoc("RFC 8705 §2.1.2: an iPAddress SAN (IPv4 dotted or IPv6), compared in binary")
        case .tlsClientAuthSANEmail: FieldDoc("RFC 8705 §2.1.2: an rfc822Name SAN the certificate must carry")
        case .tlsClientCertificateBoundAccessTokens:
            FieldDoc(
                "RFC 8705 §3.4: access tokens (and a public client's refresh tokens) are bound to the client certificate presented at the token endpoint (cnf.x5t#S256); a token request without a certificate is refused. Default false"
            )
        case .firstParty: FieldDoc("No consent screen")
        case .accessTokenTTLSeconds: FieldDoc(nil, .minimum(60), .maximum(86400))
        case .refreshTokenTTLSeconds: FieldDoc(nil, .minimum(60), .maximum(31_536_000))
        case .dcrTemplate:
            FieldDoc(
                "A template for dynamic registration: may get scope dcr by client_credentials, and the clients registered with that token copy its settings; must be confidential. Default false"
            )
        case .attestationRequired:
            FieldDoc(
                "A public client gets an API-flow token (scope urn:umfa:api-flow) only with a client attestation (App Attest or Android key attestation); default false"
            )
        }
    }
}
