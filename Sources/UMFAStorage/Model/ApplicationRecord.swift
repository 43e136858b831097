import Foundation
import UMFATokens

/// An application (a relying party) and its settings.
package struct ApplicationRecord: Sendable, Hashable {
    /// The application id.
    package var id: UUID
    /// A human name for the admin console.
    package var name: String
    /// The WebAuthn RP ID.
    package var rpID: String
    /// The RP name shown by authenticators.
    package var rpName: String
    /// The allowed origins, web and native, matched exactly.
    package var origins: [String]
    /// The origins of other sites that may use ``rpID`` too (WebAuthn L3 §5.11), web origins
    /// matched exactly, published at `https://<rp_id>/.well-known/webauthn`.
    package var relatedOrigins: [String]
    /// Who may enroll.
    package var enrollmentPolicy: EnrollmentPolicy
    /// `required`, `preferred` or `discouraged`.
    package var userVerification: UserVerificationSetting
    /// `none`, `indirect`, `direct` or `enterprise`.
    package var attestation: AttestationConveyanceSetting
    /// The lifetime of login tokens, in seconds.
    package var tokenTTLSeconds: Int
    /// When the application was created.
    package var createdAt: Date
    /// Which attestations registration accepts: `any`, `self_or_trusted` or `trusted`.
    package var attestationPolicy: AttestationPolicySetting
    /// When set, only these authenticator models (AAGUIDs) may register.
    package var aaguidAllow: [String]?
    /// Authenticator models (AAGUIDs) that may never register.
    package var aaguidDeny: [String]
    /// Whether people may create accounts on the hosted pages (docs/contract.md §5).
    package var signup: SignupSetting
    /// The algorithm of its login tokens and OAuth tokens (docs/contract.md §2, §5).
    package var tokenSigningAlgorithm: TokenSigningAlgorithm
    /// Its iOS apps, `TEAMID.bundle.id`, published in `apple-app-site-association`.
    package var appleAppIDs: [String]
    /// Its Android apps, published in `assetlinks.json`.
    package var androidApps: [AndroidAppIdentity]
    /// Whether DPoP proofs must carry a server nonce (RFC 9449 §8): `off` or `required`.
    package var dpopNonce: DPoPNonceSetting
    /// Where out-of-band transaction changes are POSTed (docs/contract.md §7); `nil` for none.
    package var webhookURL: String?
    /// The webhook signing secret, sealed with the master key.
    package var sealedWebhookSecret: [UInt8]?
    /// The scopes a client that registers itself (RFC 7591) may ask for.
    package var allowedScopes: [String]
    /// The resource indicators (RFC 8707) the application's access tokens may be issued for;
    /// each names one application only.
    package var resourceIndicators: [String]
    /// What its options ask of clients: hints, attestation formats, credential protection.
    package var ceremonyPreferences = CeremonyPreferences()
    /// The admin-made confidential clients (client ids) that may introspect tokens issued to
    /// any of its clients (resource servers, RFC 7662); every other client sees only its own.
    package var introspectionClients: [String] = []
    /// Whether a person who lost every passkey may get a link to a new one by mail.
    package var emailRecovery = true
    /// The RFC 9396 `authorization_details` types its clients may ask for; none by default.
    package var authorizationDetailsTypes: [String] = []

    /// The scopes ``allowedScopes`` holds by default: OpenID Connect Core §5.4 and §11.
    package static let standardScopes = ["openid", "profile", "email", "phone", "offline_access"]

    /// Creates an application record.
    package init(
        id: UUID, name: String, rpID: String, rpName: String, origins: [String], relatedOrigins: [String] = [],
        enrollmentPolicy: EnrollmentPolicy,
        userVerification: UserVerificationSetting, attestation: AttestationConveyanceSetting, tokenTTLSeconds: Int,
        createdAt: Date, attestationPolicy: AttestationPolicySetting = .any, aaguidAllow: [String]? = nil,
        aaguidDeny: [String] = [], signup: SignupSetting = .enabled,
        tokenSigningAlgorithm: TokenSigningAlgorithm = .rs256, appleAppIDs: [String] = [],
        androidApps: [AndroidAppIdentity] = [], dpopNonce: DPoPNonceSetting = .off, webhookURL: String? = nil,
        sealedWebhookSecret: [UInt8]? = nil, allowedScopes: [String] = ApplicationRecord.standardScopes,
        resourceIndicators: [String] = []
    ) {
        self.allowedScopes = allowedScopes
        self.resourceIndicators = resourceIndicators
        self.dpopNonce = dpopNonce
        self.webhookURL = webhookURL
        self.sealedWebhookSecret = sealedWebhookSecret
        self.signup = signup
        self.tokenSigningAlgorithm = tokenSigningAlgorithm
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
        self.attestationPolicy = attestationPolicy
        self.aaguidAllow = aaguidAllow
        self.aaguidDeny = aaguidDeny
        self.id = id
        self.name = name
        self.rpID = rpID
        self.rpName = rpName
        self.origins = origins
        self.relatedOrigins = relatedOrigins
        self.enrollmentPolicy = enrollmentPolicy
        self.userVerification = userVerification
        self.attestation = attestation
        self.tokenTTLSeconds = tokenTTLSeconds
        self.createdAt = createdAt
    }
}

extension ApplicationRecord {
    /// The names the application queries select and order by; every other column is named
    /// only in ``table``.
    enum ColumnName {
        /// The key.
        static let id = "id"
        /// The RP ID, which `/.well-known/webauthn` looks applications up by.
        static let rpID = "rp_id"
        /// The creation time, which lists are ordered by.
        static let createdAt = "created_at"
    }

    /// The `applications` table: each stored setting is one entry, its column's type and
    /// default, how the record writes it and how a row is read back. The statements, the row
    /// decoding and the migration of a column added later (`added:` its schema version) follow
    /// from this list; the columns without a version were made by the written migrations.
    static let table = StoredTable<ApplicationRecord>(
        "applications",
        columns: [
            StoredColumn(
                ColumnName.id, .text, role: .key, write: { .uuid($0.id) }, read: { $0.id = try $1.uuid() }),
            StoredColumn("name", .text, write: { .text($0.name) }, read: { $0.name = try $1.text() }),
            StoredColumn(ColumnName.rpID, .text, write: { .text($0.rpID) }, read: { $0.rpID = try $1.text() }),
            StoredColumn("rp_name", .text, write: { .text($0.rpName) }, read: { $0.rpName = try $1.text() }),
            StoredColumn(
                "origins", .text, write: { .text(StoredValue.json($0.origins)) },
                read: { $0.origins = try $1.list() }),
            StoredColumn(
                "related_origins", .text, default: .text("[]"),
                write: { .text(StoredValue.json($0.relatedOrigins)) }, read: { $0.relatedOrigins = try $1.list() }),
            StoredColumn(
                "enrollment_policy", .text, write: { .text($0.enrollmentPolicy.rawValue) },
                read: {
                    guard let policy = EnrollmentPolicy(rawValue: try $1.text()) else {
                        throw StoreError(.corrupt, "unknown enrollment policy")
                    }
                    $0.enrollmentPolicy = policy
                }),
            StoredColumn(
                "user_verification", .text, write: { .text($0.userVerification.rawValue) },
                read: { $0.userVerification = try $1.setting() }),
            StoredColumn(
                "attestation", .text, write: { .text($0.attestation.rawValue) },
                read: { $0.attestation = try $1.setting() }),
            StoredColumn(
                "token_ttl_seconds", .bigint, write: { .integer(Int64($0.tokenTTLSeconds)) },
                read: { $0.tokenTTLSeconds = Int(try $1.integer()) }),
            StoredColumn(
                ColumnName.createdAt, .bigint, role: .fixed, write: { .date($0.createdAt) },
                read: { $0.createdAt = try $1.date() }),
            StoredColumn(
                "attestation_policy", .text, default: .text("any"), write: { .text($0.attestationPolicy.rawValue) },
                read: { $0.attestationPolicy = try $1.optionalText().map(AttestationPolicySetting.parse) ?? .any }),
            StoredColumn(
                "aaguid_allow", .text, default: .null,
                write: { $0.aaguidAllow.map { .text(StoredValue.json($0)) } ?? .null },
                read: { $0.aaguidAllow = try $1.optionalText().map(StoredValue.list) }),
            StoredColumn(
                "aaguid_deny", .text, default: .text("[]"), write: { .text(StoredValue.json($0.aaguidDeny)) },
                read: { $0.aaguidDeny = try $1.optionalText().map(StoredValue.list) ?? [] }),
            StoredColumn(
                "signup", .text, default: .text("enabled"), write: { .text($0.signup.rawValue) },
                read: { $0.signup = $1.optionalText().flatMap(SignupSetting.init(rawValue:)) ?? .enabled }),
            StoredColumn(
                "token_signing_alg", .text, default: .text("RS256"),
                write: { .text($0.tokenSigningAlgorithm.rawValue) },
                read: { $0.tokenSigningAlgorithm = try $1.setting() }),
            StoredColumn(
                "apple_app_ids", .text, default: .text("[]"), write: { .text(StoredValue.json($0.appleAppIDs)) },
                read: { $0.appleAppIDs = try $1.list() }),
            StoredColumn(
                "android_apps", .text, default: .text("[]"),
                write: { .text(StoredValue.json(encoding: $0.androidApps)) },
                read: { $0.androidApps = try StoredValue.decoded([AndroidAppIdentity].self, from: try $1.text()) }),
            StoredColumn(
                "dpop_nonce", .text, default: .text("off"), write: { .text($0.dpopNonce.rawValue) },
                read: { $0.dpopNonce = try $1.setting() }),
            StoredColumn(
                "webhook_url", .text, default: .null, write: { $0.webhookURL.map { .text($0) } ?? .null },
                read: { $0.webhookURL = $1.optionalText() }),
            StoredColumn(
                "sealed_webhook_secret", .text, default: .null,
                write: { $0.sealedWebhookSecret.map { .bytes($0) } ?? .null },
                read: { $0.sealedWebhookSecret = try $1.optionalText().map(StoredValue.bytes) }),
            StoredColumn(
                "allowed_scopes", .text, default: .text(StoredValue.json(standardScopes)),
                write: { .text(StoredValue.json($0.allowedScopes)) }, read: { $0.allowedScopes = try $1.list() }),
            StoredColumn(
                "resource_indicators", .text, default: .text("[]"),
                write: { .text(StoredValue.json($0.resourceIndicators)) },
                read: { $0.resourceIndicators = try $1.list() }),
            StoredColumn(
                "hints", .text, default: .text("[]"),
                write: { .text(StoredValue.json($0.ceremonyPreferences.hints.map(\.rawValue))) },
                read: {
                    $0.ceremonyPreferences.hints = try StoredValue.list($1.optionalText() ?? "[]")
                        .map(CredentialHintSetting.parse)
                }),
            StoredColumn(
                "attestation_formats", .text, default: .text("[]"),
                write: { .text(StoredValue.json($0.ceremonyPreferences.attestationFormats)) },
                read: { $0.ceremonyPreferences.attestationFormats = try StoredValue.list($1.optionalText() ?? "[]") }),
            StoredColumn(
                "credential_protection_policy", .text, default: .null,
                write: { $0.ceremonyPreferences.credentialProtectionPolicy.map { .text($0.rawValue) } ?? .null },
                read: {
                    $0.ceremonyPreferences.credentialProtectionPolicy = try $1.optionalText().map(
                        CredentialProtectionPolicySetting.parse)
                }),
            StoredColumn(
                "enforce_credential_protection_policy", .boolean, default: .integer(0),
                write: { .bool($0.ceremonyPreferences.enforceCredentialProtectionPolicy) },
                read: { $0.ceremonyPreferences.enforceCredentialProtectionPolicy = ($1.optionalInteger() ?? 0) != 0 }),
            StoredColumn(
                "introspection_clients", .text, default: .text("[]"),
                write: { .text(StoredValue.json($0.introspectionClients)) },
                read: { $0.introspectionClients = try StoredValue.list($1.optionalText() ?? "[]") }),
            StoredColumn(
                "email_recovery", .boolean, default: .integer(1), added: 17, write: { .bool($0.emailRecovery) },
                read: { $0.emailRecovery = ($1.optionalInteger() ?? 1) != 0 }),
            StoredColumn(
                "authorization_details_types", .text, default: .text("[]"), added: 19,
                write: { .text(StoredValue.json($0.authorizationDetailsTypes)) },
                read: { $0.authorizationDetailsTypes = try StoredValue.list($1.optionalText() ?? "[]") }),
        ])

    /// Reads a row of ``table``.
    init(row: some StoredRow) throws {
        self = Self.unread
        try Self.table.read(row, into: &self)
    }

    /// The record every read starts from; reading sets each of its columns.
    private static let unread = ApplicationRecord(
        id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), name: "", rpID: "", rpName: "", origins: [],
        enrollmentPolicy: .grant, userVerification: .preferred, attestation: .none, tokenTTLSeconds: 0,
        createdAt: Date(timeIntervalSince1970: 0))
}
