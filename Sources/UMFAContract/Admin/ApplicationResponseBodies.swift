/// An application as the admin API shows it: its identity, and every setting that has a value
/// (``ApplicationSettings``) at the top level. Read a setting through the answer
/// (`response.rpID`) or ``settings``.
public struct ApplicationResponse: ContractBody, TraceCarrying, ApplicationSettingsCarrier, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The application's id, a UUID.
    public var applicationID: String
    /// Its first API key, only in the answer that created it.
    public var apiKey: String?
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// What the enrollment policy means, with a warning for `open`.
    public var enrollmentPolicyDescription: String
    /// The webhook signing secret, only in the answer that first set a webhook URL.
    public var webhookSecret: String?
    /// Its settings: every member that ``ApplicationSettings/CodingKeys/isAlwaysAnswered``, and
    /// the others when they have a value.
    public var settings: ApplicationSettings

    /// Creates an answer.
    public init(
        traceID: String, applicationID: String, apiKey: String? = nil, createdAt: String,
        enrollmentPolicyDescription: String, webhookSecret: String? = nil, settings: ApplicationSettings
    ) {
        self.traceID = traceID
        self.applicationID = applicationID
        self.apiKey = apiKey
        self.createdAt = createdAt
        self.enrollmentPolicyDescription = enrollmentPolicyDescription
        self.webhookSecret = webhookSecret
        self.settings = settings
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case applicationID = "application_id"
        case apiKey = "api_key"
        case createdAt = "created_at"
        case enrollmentPolicyDescription = "enrollment_policy_description"
        case webhookSecret = "webhook_secret"
    }

    /// Decodes the flat object; the settings every answer has must be present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        traceID = try container.decode(String.self, forKey: .traceID)
        applicationID = try container.decode(String.self, forKey: .applicationID)
        apiKey = try container.decodeIfPresent(String.self, forKey: .apiKey)
        createdAt = try container.decode(String.self, forKey: .createdAt)
        enrollmentPolicyDescription = try container.decode(String.self, forKey: .enrollmentPolicyDescription)
        webhookSecret = try container.decodeIfPresent(String.self, forKey: .webhookSecret)
        settings = try ApplicationSettings(answerFrom: decoder)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try settings.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(traceID, forKey: .traceID)
        try container.encode(applicationID, forKey: .applicationID)
        try container.encodeIfPresent(apiKey, forKey: .apiKey)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(enrollmentPolicyDescription, forKey: .enrollmentPolicyDescription)
        try container.encodeIfPresent(webhookSecret, forKey: .webhookSecret)
    }

    /// An example with every member.
    public static let example = ApplicationResponse(
        traceID: Examples.traceID, applicationID: Examples.applicationID, apiKey: "umfa_ak_x",
        createdAt: Examples.time, enrollmentPolicyDescription: "grant: …", webhookSecret: "umfa_whs_…",
        settings: .example)
}

/// `GET /api/admin/applications`: `{trace_id, applications}`.
public struct ApplicationListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Every application.
    public var applications: [ApplicationResponse]

    /// Creates an answer.
    public init(traceID: String, applications: [ApplicationResponse]) {
        self.traceID = traceID
        self.applications = applications
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case applications
    }

    /// An example with every member.
    public static let example = ApplicationListResponse(traceID: Examples.traceID, applications: [.example])
}

// MARK: - openapi.yaml

extension ApplicationResponse: DocumentedFields {
    static let schemaDescription: String? = "An application as the admin API shows it"
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [ApplicationSettings.self] }

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .applicationID: FieldDoc("The application's id", .format("uuid"))
        case .apiKey: FieldDoc("Its first API key (umfa_ak_...), only in the answer that created it, shown once")
        case .createdAt: FieldDoc("When it was created (RFC 3339)", .format("date-time"))
        case .enrollmentPolicyDescription: FieldDoc("What the enrollment policy means, with a warning for open")
        case .webhookSecret:
            FieldDoc("The webhook signing secret (umfa_whs_...), only in the answer that first set a webhook_url")
        }
    }
}

extension ApplicationListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .applications: .ref(named: "ApplicationResponse", "Every application (without API keys)")
        }
    }
}
