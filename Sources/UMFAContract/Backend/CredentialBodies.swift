/// A registered credential as the application's backend sees it (never its public key).
public struct CredentialSummary: Codable, Sendable, Equatable {
    /// The credential id, base64url.
    public var credentialID: String
    /// The name given at registration.
    public var deviceName: String?
    /// When it was registered (RFC 3339).
    public var createdAt: String
    /// When it last signed in (RFC 3339).
    public var lastUsedAt: String?
    /// The authenticator model's AAGUID.
    public var aaguid: String
    /// How the authenticator can be reached.
    public var transports: [String]
    /// Whether the credential may be synced (BE).
    public var backupEligible: Bool
    /// Whether it is synced now (BS).
    public var backupState: Bool
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The attestation statement format it registered with.
    public var attestationFormat: String
    /// The model's name from FIDO metadata, when metadata named it.
    public var authenticatorName: String?
    /// Whether the credential is discoverable, so it signs in without a username
    /// (`credProps.rk`, WebAuthn L3 §10.1.3); `null` when the client did not say.
    public var discoverable: Bool?
    /// Whether the credential supports PRF (`prf.enabled`, WebAuthn L3 §10.1.4); `null` when the
    /// client did not say.
    public var prfEnabled: Bool?

    /// Creates a summary.
    public init(
        credentialID: String, deviceName: String?, createdAt: String, lastUsedAt: String?, aaguid: String,
        transports: [String], backupEligible: Bool, backupState: Bool, signCount: UInt32, attestationFormat: String,
        authenticatorName: String?, discoverable: Bool? = nil, prfEnabled: Bool? = nil
    ) {
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
        self.credentialID = credentialID
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.aaguid = aaguid
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.signCount = signCount
        self.attestationFormat = attestationFormat
        self.authenticatorName = authenticatorName
    }

    enum CodingKeys: String, CodingKey {
        case credentialID = "credential_id"
        case deviceName = "device_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case aaguid, transports
        case backupEligible = "backup_eligible"
        case backupState = "backup_state"
        case signCount = "sign_count"
        case attestationFormat = "attestation_format"
        case authenticatorName = "authenticator_name"
        case discoverable
        case prfEnabled = "prf_enabled"
    }

    /// Encodes every member; `discoverable` and `prf_enabled` as `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(credentialID, forKey: .credentialID)
        try container.encodeIfPresent(deviceName, forKey: .deviceName)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(aaguid, forKey: .aaguid)
        try container.encode(transports, forKey: .transports)
        try container.encode(backupEligible, forKey: .backupEligible)
        try container.encode(backupState, forKey: .backupState)
        try container.encode(signCount, forKey: .signCount)
        try container.encode(attestationFormat, forKey: .attestationFormat)
        try container.encodeIfPresent(authenticatorName, forKey: .authenticatorName)
        try container.encode(discoverable, forKey: .discoverable)
        try container.encode(prfEnabled, forKey: .prfEnabled)
    }

    /// An example with every member.
    public static let example = CredentialSummary(
        credentialID: "AQIDBA", deviceName: "Alice's phone", createdAt: Examples.time, lastUsedAt: Examples.time,
        aaguid: "00000000-0000-0000-0000-000000000000", transports: ["internal"], backupEligible: false,
        backupState: false, signCount: 1, attestationFormat: "none", authenticatorName: "Example Key",
        discoverable: true, prfEnabled: false)
}

/// `GET /api/umfa/users/{user_id}/credentials`: `{trace_id, credentials}`.
public struct CredentialListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user's credentials.
    public var credentials: [CredentialSummary]

    /// Creates an answer.
    public init(traceID: String, credentials: [CredentialSummary]) {
        self.traceID = traceID
        self.credentials = credentials
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case credentials
    }

    /// An example with every member.
    public static let example = CredentialListResponse(traceID: Examples.traceID, credentials: [.example])
}

/// The answer of a deletion: `{trace_id, removed: true}`.
public struct RemovedResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Always `true`.
    public var removed: Bool

    /// Creates an answer.
    public init(traceID: String, removed: Bool = true) {
        self.traceID = traceID
        self.removed = removed
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case removed
    }

    /// An example with every member.
    public static let example = RemovedResponse(traceID: Examples.traceID)
}

// MARK: - openapi.yaml

extension CredentialSummary: DocumentedFields {
    static let schemaDescription: String? =
        "A registered credential as the application's backend sees it (never its public key)"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .credentialID: .ref(.credentialID)
        case .deviceName: FieldDoc("The name given at registration; absent when none was")
        case .createdAt: FieldDoc("When it was registered (RFC 3339)", .format("date-time"))
        case .lastUsedAt: FieldDoc("When it last signed in (RFC 3339); absent when it never has", .format("date-time"))
        case .aaguid: FieldDoc("The authenticator model's AAGUID", .format("uuid"))
        case .transports: FieldDoc("How the authenticator can be reached (usb, nfc, ble, hybrid, internal, ...)")
        case .backupEligible: FieldDoc("Whether the credential may be synced (BE flag)")
        case .backupState: FieldDoc("Whether it is synced now (BS flag)")
        case .signCount: FieldDoc("The last signature counter seen", .minimum(0), .maximum(4_294_967_295))
        case .attestationFormat:
            FieldDoc("The attestation statement format it registered with (none, packed, tpm, ...)")
        case .authenticatorName: FieldDoc("The model's name from FIDO metadata; absent when metadata did not name it")
        case .discoverable:
            FieldDoc(
                "Whether it signs in without a username: the client's credProps.rk at registration (WebAuthn L3 §10.1.3); null when the client did not say",
                .nullable("boolean"))
        case .prfEnabled:
            FieldDoc(
                "Whether it supports PRF: the client's prf.enabled at registration (WebAuthn L3 §10.1.4); null when the client did not say",
                .nullable("boolean"))
        }
    }
}

extension CredentialListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .credentials: .ref(CredentialSummary.self, "The user's credentials")
        }
    }
}

extension RemovedResponse: DocumentedFields {
    static let schemaDescription: String? = "The answer of a deletion"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .removed: FieldDoc("Always true", .constant(true))
        }
    }
}
