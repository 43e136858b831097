/// `PATCH /api/admin/applications/{id}`: the settings to change (``ApplicationSettings``), an
/// absent member keeping its value, and the caller's trace id. Read a setting through the
/// request (`request.dpopNonce`) or ``settings``.
public struct ApplicationSettingsRequest: ContractBody, ApplicationSettingsCarrier, Equatable {
    /// The settings to change.
    public var settings: ApplicationSettings
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(_ settings: ApplicationSettings = ApplicationSettings(), traceID: String? = nil) {
        self.settings = settings
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
    }

    /// Decodes the flat object.
    public init(from decoder: any Decoder) throws {
        settings = try ApplicationSettings(from: decoder)
        traceID = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .traceID)
    }

    /// Encodes one flat object.
    public func encode(to encoder: any Encoder) throws {
        try settings.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(traceID, forKey: .traceID)
    }

    /// An example with every member.
    public static let example = ApplicationSettingsRequest(.example, traceID: Examples.traceID)
}

/// `POST /api/admin/applications`: a new application. `name`, `rp_id` and `origins` are
/// required; the other settings are those of ``ApplicationSettingsRequest``.
public struct CreateApplicationRequest: ContractBody, Equatable {
    /// The application's name.
    public var name: String
    /// The WebAuthn RP ID.
    public var rpID: String
    /// The allowed origins.
    public var origins: [String]
    /// The optional settings (their `name`, `rp_id` and `origins` are not read).
    public var settings: ApplicationSettingsRequest

    /// Creates a request.
    public init(name: String, rpID: String, origins: [String], settings: ApplicationSettingsRequest = .init()) {
        self.name = name
        self.rpID = rpID
        self.origins = origins
        self.settings = settings
    }

    enum CodingKeys: String, CodingKey {
        case name, origins
        case rpID = "rp_id"
    }

    /// Decodes the required members, then the settings from the same object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        rpID = try container.decode(String.self, forKey: .rpID)
        origins = try container.decode([String].self, forKey: .origins)
        settings = try ApplicationSettingsRequest(from: decoder)
    }

    /// Encodes one flat object.
    public func encode(to encoder: any Encoder) throws {
        var flat = settings
        flat.name = name
        flat.rpID = rpID
        flat.origins = origins
        try flat.encode(to: encoder)
    }

    /// An example with every member.
    public static let example = CreateApplicationRequest(
        name: "Shop", rpID: "shop.example", origins: ["https://shop.example"], settings: .example)
}

/// An Android app of an application, as Digital Asset Links names it.
public struct AndroidApp: Codable, Sendable, Equatable {
    /// The package name, such as `com.example.shop`.
    public var packageName: String
    /// SHA-256 fingerprints of the app's signing certificates, as 32 colon-separated
    /// upper-case hex bytes.
    public var sha256CertFingerprints: [String]

    /// Creates an app.
    public init(packageName: String, sha256CertFingerprints: [String]) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case sha256CertFingerprints = "sha256_cert_fingerprints"
    }

    /// An example with every member.
    public static let example = AndroidApp(
        packageName: "com.example.shop",
        sha256CertFingerprints: [Array(repeating: "AB", count: 32).joined(separator: ":")])
}

// MARK: - openapi.yaml

extension ApplicationSettingsRequest: DocumentedFields {
    static let schemaDescription: String? =
        "The settings to change; an absent member keeps its value. The same members (name, rp_id and origins then required) create an application."
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [ApplicationSettings.self] }

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.traceID)
        }
    }
}

extension CreateApplicationRequest: DocumentedFields {
    static let schemaDescription: String? =
        "A new application, one flat object: name, rp_id and origins are required; every other setting takes its default when absent."

    /// The three required members read as the settings of the same names.
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .name: ApplicationSettings.describe(.name)
        case .origins: ApplicationSettings.describe(.origins)
        case .rpID: ApplicationSettings.describe(.rpID)
        }
    }
}

extension AndroidApp: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .packageName: FieldDoc("The package name, such as com.example.shop")
        case .sha256CertFingerprints:
            FieldDoc(
                "SHA-256 fingerprints of its signing certificates, 32 colon-separated hex bytes", .minItems(1),
                .maxItems(10))
        }
    }
}
