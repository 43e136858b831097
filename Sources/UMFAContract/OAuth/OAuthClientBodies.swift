import UMFAEncoding

/// `POST /api/admin/applications/{id}/oauth-clients` and `PATCH …/oauth-clients/{client_id}`:
/// the client's settings (``ClientMetadata``). On create, absent members take their defaults; on
/// update, absent members keep their value.
public typealias OAuthClientRequest = ClientMetadata

/// One OAuth client as the admin API shows it (never its secret): its identity and its
/// settings, every member of ``ClientMetadata`` it has at the top level. Read a setting
/// through the view (`view.clientName`) or ``metadata``.
public struct OAuthClientView: ClientMetadataCarrier, Codable, Sendable, Equatable {
    /// `client_id`.
    public var clientID: String
    /// The application (issuer) it belongs to.
    public var applicationID: String
    /// When it was registered (RFC 3339).
    public var createdAt: String
    /// Its settings, every member it has present.
    public var metadata: ClientMetadata

    /// Creates a view.
    public init(clientID: String, applicationID: String, createdAt: String, metadata: ClientMetadata) {
        self.clientID = clientID
        self.applicationID = applicationID
        self.createdAt = createdAt
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case applicationID = "application_id"
        case createdAt = "created_at"
    }

    /// Decodes the flat object; the members every answer has must be present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        applicationID = try container.decode(String.self, forKey: .applicationID)
        createdAt = try container.decode(String.self, forKey: .createdAt)
        metadata = try ClientMetadata(answerFrom: decoder)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(applicationID, forKey: .applicationID)
        try container.encode(createdAt, forKey: .createdAt)
    }

    static let example = OAuthClientView(
        clientID: "umfa_ci_x", applicationID: Examples.applicationID, createdAt: Examples.time, metadata: .example)
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

// MARK: - openapi.yaml

extension OAuthClientView: DocumentedFields {
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [ClientMetadata.self] }

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .clientID: .plain
        case .applicationID: .ref(.applicationID)
        case .createdAt: FieldDoc(nil, .format("date-time"))
        }
    }
}

extension OAuthClientResponse: DocumentedFields {
    static let schemaDescription: String? = "The client, its trace id, and client_secret once when it was just made"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .clientSecret: FieldDoc("Shown once; stored as SHA-256")
        }
    }
}

extension OAuthClientListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .clients: .ref(named: "OAuthClientView")
        }
    }
}
