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

/// A registration (RFC 7591 §2) or an update (RFC 7592 §2.2, which also names the `client_id`):
/// the client's ``ClientMetadata`` and the members only a registration request has. Members UMFA
/// does not know are ignored, as RFC 7591 §2 asks; `jwks_uri` and `software_statement` are known
/// and refused (UMFA takes `jwks` by value and has no software statement issuer).
public struct ClientRegistrationRequest: ClientMetadataCarrier, ContractBody, Equatable {
    /// `client_id`: only in an update, where it must be the client's own.
    public var clientID: String?
    /// `client_secret`: only in an update; when present it must be the client's current secret.
    public var clientSecret: String?
    /// `jwks_uri`: refused (send `jwks`).
    public var jwksURI: String?
    /// `software_version`: accepted and not kept.
    public var softwareVersion: String?
    /// `software_statement`: refused.
    public var softwareStatement: String?
    /// The client's settings.
    public var metadata: ClientMetadata

    /// Creates a request with the settings `metadata`.
    public init(metadata: ClientMetadata) {
        self.metadata = metadata
    }

    /// Creates a request.
    public init(
        clientName: String? = nil, redirectURIs: [String]? = nil, grantTypes: [String]? = nil,
        responseTypes: [String]? = nil, tokenEndpointAuthMethod: String? = nil, scope: String? = nil,
        softwareID: String? = nil
    ) {
        metadata = ClientMetadata(
            clientName: clientName, redirectURIs: redirectURIs, grantTypes: grantTypes, responseTypes: responseTypes,
            tokenEndpointAuthMethod: tokenEndpointAuthMethod, scope: scope, softwareID: softwareID)
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case jwksURI = "jwks_uri"
        case softwareVersion = "software_version"
        case softwareStatement = "software_statement"
    }

    /// Decodes the flat object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decodeIfPresent(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
        jwksURI = try container.decodeIfPresent(String.self, forKey: .jwksURI)
        softwareVersion = try container.decodeIfPresent(String.self, forKey: .softwareVersion)
        softwareStatement = try container.decodeIfPresent(String.self, forKey: .softwareStatement)
        metadata = try ClientMetadata(from: decoder)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(jwksURI, forKey: .jwksURI)
        try container.encodeIfPresent(softwareVersion, forKey: .softwareVersion)
        try container.encodeIfPresent(softwareStatement, forKey: .softwareStatement)
    }

    /// An example with every member.
    public static let example: ClientRegistrationRequest = {
        var request = ClientRegistrationRequest(metadata: .example)
        request.clientID = "umfa_ci_x"
        request.clientSecret = "umfa_cs_x"
        request.jwksURI = "https://shop.example/jwks"
        request.softwareVersion = "1.0"
        request.softwareStatement = "eyJ..."
        return request
    }()
}

/// A registered client as RFC 7591 §3.2.1 and RFC 7592 §3 answer it: its settings, its
/// `client_id`, and — at registration only — its `client_secret` and `registration_access_token`
/// (both stored as SHA-256, so never shown again).
public struct ClientRegistrationResponse: ClientMetadataCarrier, ContractBody, Equatable {
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
    /// The client's settings, every member it has present.
    public var metadata: ClientMetadata

    /// Creates an answer.
    public init(clientID: String, clientIDIssuedAt: Int, registrationClientURI: String, metadata: ClientMetadata) {
        self.clientID = clientID
        self.clientIDIssuedAt = clientIDIssuedAt
        self.registrationClientURI = registrationClientURI
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientIDIssuedAt = "client_id_issued_at"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
    }

    /// Decodes the flat object; the members every answer has must be present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
        clientIDIssuedAt = try container.decode(Int.self, forKey: .clientIDIssuedAt)
        clientSecretExpiresAt = try container.decodeIfPresent(Int.self, forKey: .clientSecretExpiresAt)
        registrationAccessToken = try container.decodeIfPresent(String.self, forKey: .registrationAccessToken)
        registrationClientURI = try container.decode(String.self, forKey: .registrationClientURI)
        metadata = try ClientMetadata(answerFrom: decoder)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encode(clientIDIssuedAt, forKey: .clientIDIssuedAt)
        try container.encodeIfPresent(clientSecretExpiresAt, forKey: .clientSecretExpiresAt)
        try container.encodeIfPresent(registrationAccessToken, forKey: .registrationAccessToken)
        try container.encode(registrationClientURI, forKey: .registrationClientURI)
    }

    /// An example with every member.
    public static let example: ClientRegistrationResponse = {
        var response = ClientRegistrationResponse(
            clientID: "umfa_ci_x", clientIDIssuedAt: 1_795_000_000,
            registrationClientURI: "https://umfa.example/oidc/x/register/umfa_ci_x", metadata: .example)
        response.clientSecret = "umfa_cs_x"
        response.clientSecretExpiresAt = 0
        response.registrationAccessToken = "umfa_rat_x"
        return response
    }()
}

// MARK: - openapi.yaml

extension InitialAccessTokenRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .ttlSeconds: FieldDoc("How long the token works; default 86400", .minimum(60), .maximum(2_592_000))
        case .uses: FieldDoc("How many clients it may register; default 1", .minimum(1), .maximum(1000))
        case .scope:
            FieldDoc(
                "Space-separated scopes a client registered with it may ask for, in place of the application's allowed_scopes"
            )
        }
    }
}

extension InitialAccessTokenResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .initialAccessToken: FieldDoc("Shown once; stored as SHA-256")
        case .expiresAt: FieldDoc(nil, .format("date-time"))
        case .uses: .plain
        }
    }
}

extension ClientRegistrationRequest: DocumentedFields {
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [ClientMetadata.self] }

    static let schemaDescription: String? =
        "RFC 7591 §2 client metadata (RFC 7592 §2.2 for an update, with client_id); unknown members are ignored. With a dcr access token, or a software_id naming a dcr_template client, every protection of the template is inherited when left out and may only be tightened (docs/oidc-provider.md, \"Dynamic client registration\"): a looser value is invalid_client_metadata, at registration and at every update; response_types follow grant_types. A client that registers itself may not take the name of the application or of an admin-made client (compared without case, spaces, punctuation, accents and common look-alike letters) and never holds umfa:passkeys: both are invalid_client_metadata"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .clientID: FieldDoc("Update only: the client's own id")
        case .clientSecret: FieldDoc("Update only: when present, the client's current secret")
        case .jwksURI: FieldDoc("Refused; send jwks")
        case .softwareVersion: FieldDoc("Accepted and not kept")
        case .softwareStatement: FieldDoc("Refused (invalid_software_statement)")
        }
    }
}

extension ClientRegistrationResponse: DocumentedFields {
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [ClientMetadata.self] }

    static let schemaDescription: String? =
        "RFC 7591 §3.2.1 / RFC 7592 §3: client_secret and registration_access_token only at registration"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .clientID: .plain
        case .clientSecret: .plain
        case .clientIDIssuedAt: .plain
        case .clientSecretExpiresAt: FieldDoc("0: the secret does not expire")
        case .registrationAccessToken: .plain
        case .registrationClientURI: .plain
        }
    }
}
