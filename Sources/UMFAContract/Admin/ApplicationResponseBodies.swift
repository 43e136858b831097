/// An application as the admin API shows it.
public struct ApplicationResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The application's id, a UUID.
    public var applicationID: String
    /// Its first API key, only in the answer that created it.
    public var apiKey: String?
    /// The name.
    public var name: String
    /// The WebAuthn RP ID.
    public var rpID: String
    /// The name authenticators show.
    public var rpName: String
    /// The allowed origins.
    public var origins: [String]
    /// The related origins (WebAuthn L3 §5.11) served at `/.well-known/webauthn`.
    public var relatedOrigins: [String]
    /// `open` or `grant`.
    public var enrollmentPolicy: String
    /// What the enrollment policy means, with a warning for `open`.
    public var enrollmentPolicyDescription: String
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String
    /// The attestation conveyance asked for.
    public var attestation: String
    /// Login-token lifetime in seconds.
    public var tokenTTLSeconds: Int
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// `any`, `self_or_trusted` or `trusted`.
    public var attestationPolicy: String
    /// Only these AAGUIDs may register; `nil` for any.
    public var aaguidAllow: [String]?
    /// These AAGUIDs may not register.
    public var aaguidDeny: [String]
    /// `enabled` or `disabled`: account creation on the hosted pages.
    public var signup: String
    /// `RS256`, `ES256` or `EdDSA`.
    public var tokenSigningAlg: String
    /// iOS apps in `apple-app-site-association`.
    public var appleAppIDs: [String]
    /// Android apps in `assetlinks.json`.
    public var androidApps: [AndroidApp]
    /// `off` or `required`: DPoP server nonces.
    public var dpopNonce: String
    /// The webhook receiver, if any.
    public var webhookURL: String?
    /// The webhook signing secret, only in the answer that first set a webhook URL.
    public var webhookSecret: String?
    /// The scopes a self-registered client may ask for.
    public var allowedScopes: [String]
    /// The resource indicators (RFC 8707) its access tokens may be issued for.
    public var resourceIndicators: [String]
    /// Hints for the user agent, most preferred first.
    public var hints: [String]
    /// Preferred attestation statement formats, most preferred first.
    public var attestationFormats: [String]
    /// The credential protection level registrations ask for; absent for none.
    public var credentialProtectionPolicy: String?
    /// Whether clients must refuse authenticators that cannot apply it.
    public var enforceCredentialProtectionPolicy: Bool
    /// The admin-made clients that may introspect any client's tokens (resource servers).
    public var introspectionClients: [String]

    /// Creates an answer.
    public init(
        traceID: String, applicationID: String, apiKey: String? = nil, name: String, rpID: String, rpName: String,
        origins: [String], relatedOrigins: [String] = [], enrollmentPolicy: String,
        enrollmentPolicyDescription: String, userVerification: String,
        attestation: String, tokenTTLSeconds: Int, createdAt: String, attestationPolicy: String,
        aaguidAllow: [String]?, aaguidDeny: [String], signup: String, tokenSigningAlg: String = "RS256",
        appleAppIDs: [String] = [], androidApps: [AndroidApp] = [], dpopNonce: String = "off",
        webhookURL: String? = nil, webhookSecret: String? = nil,
        allowedScopes: [String] = ["openid", "profile", "email", "phone", "offline_access"],
        resourceIndicators: [String] = [], hints: [String] = [], attestationFormats: [String] = [],
        credentialProtectionPolicy: String? = nil, enforceCredentialProtectionPolicy: Bool = false,
        introspectionClients: [String] = []
    ) {
        self.introspectionClients = introspectionClients
        self.hints = hints
        self.attestationFormats = attestationFormats
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        self.allowedScopes = allowedScopes
        self.resourceIndicators = resourceIndicators
        self.dpopNonce = dpopNonce
        self.webhookURL = webhookURL
        self.webhookSecret = webhookSecret
        self.tokenSigningAlg = tokenSigningAlg
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
        self.traceID = traceID
        self.applicationID = applicationID
        self.apiKey = apiKey
        self.name = name
        self.rpID = rpID
        self.rpName = rpName
        self.origins = origins
        self.relatedOrigins = relatedOrigins
        self.enrollmentPolicy = enrollmentPolicy
        self.enrollmentPolicyDescription = enrollmentPolicyDescription
        self.userVerification = userVerification
        self.attestation = attestation
        self.tokenTTLSeconds = tokenTTLSeconds
        self.createdAt = createdAt
        self.attestationPolicy = attestationPolicy
        self.aaguidAllow = aaguidAllow
        self.aaguidDeny = aaguidDeny
        self.signup = signup
    }

    enum CodingKeys: String, CodingKey {
        case signup
        case traceID = "trace_id"
        case applicationID = "application_id"
        case apiKey = "api_key"
        case name, origins, attestation
        case rpID = "rp_id"
        case rpName = "rp_name"
        case relatedOrigins = "related_origins"
        case enrollmentPolicy = "enrollment_policy"
        case enrollmentPolicyDescription = "enrollment_policy_description"
        case userVerification = "user_verification"
        case tokenTTLSeconds = "token_ttl_seconds"
        case createdAt = "created_at"
        case attestationPolicy = "attestation_policy"
        case aaguidAllow = "aaguid_allow"
        case aaguidDeny = "aaguid_deny"
        case tokenSigningAlg = "token_signing_alg"
        case appleAppIDs = "apple_app_ids"
        case androidApps = "android_apps"
        case dpopNonce = "dpop_nonce"
        case webhookURL = "webhook_url"
        case webhookSecret = "webhook_secret"
        case allowedScopes = "allowed_scopes"
        case resourceIndicators = "resource_indicators"
        case hints
        case attestationFormats = "attestation_formats"
        case credentialProtectionPolicy = "credential_protection_policy"
        case enforceCredentialProtectionPolicy = "enforce_credential_protection_policy"
        case introspectionClients = "introspection_clients"
    }

    /// An example with every member.
    public static let example = ApplicationResponse(
        traceID: Examples.traceID, applicationID: Examples.applicationID, apiKey: "umfa_ak_x", name: "Shop",
        rpID: "shop.example", rpName: "Shop", origins: ["https://shop.example"],
        relatedOrigins: ["https://shop.example.co.uk"], enrollmentPolicy: "grant",
        enrollmentPolicyDescription: "grant: …", userVerification: "preferred", attestation: "none",
        tokenTTLSeconds: 300, createdAt: Examples.time, attestationPolicy: "any", aaguidAllow: [], aaguidDeny: [],
        signup: "enabled", tokenSigningAlg: "RS256", appleAppIDs: ["ABCDE12345.com.example.shop"],
        androidApps: [.example], dpopNonce: "off", webhookURL: "https://shop.example/umfa-webhook",
        webhookSecret: "umfa_whs_…", allowedScopes: ["openid", "profile", "email"],
        resourceIndicators: ["https://api.shop.example"], hints: ["client-device", "hybrid"],
        attestationFormats: ["packed", "none"],
        credentialProtectionPolicy: "userVerificationOptionalWithCredentialIDList",
        enforceCredentialProtectionPolicy: false, introspectionClients: ["umfa_ci_x"])
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

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .signup:
            FieldDoc("Whether people may create accounts on the hosted pages", .enumeration(["enabled", "disabled"]))
        case .traceID: .ref(.echoedTraceID)
        case .applicationID: FieldDoc("The application's id", .format("uuid"))
        case .apiKey: FieldDoc("Its first API key (umfa_ak_...), only in the answer that created it, shown once")
        case .name: FieldDoc("The application's name")
        case .origins: FieldDoc("The allowed origins")
        case .attestation:
            FieldDoc(
                "The attestation conveyance asked for", .enumeration(["none", "indirect", "direct", "enterprise"]))
        case .rpID: FieldDoc("The WebAuthn RP ID")
        case .rpName: FieldDoc("The name authenticators show")
        case .relatedOrigins: FieldDoc("The related origins (WebAuthn L3 §5.11) served at /.well-known/webauthn")
        case .enrollmentPolicy: FieldDoc(nil, .enumeration(["open", "grant"]))
        case .enrollmentPolicyDescription: FieldDoc("What the enrollment policy means, with a warning for open")
        case .userVerification: FieldDoc(nil, .enumeration(["required", "preferred", "discouraged"]))
        case .tokenTTLSeconds: FieldDoc("Login-token lifetime in seconds", .minimum(30), .maximum(86400))
        case .createdAt: FieldDoc("When it was created (RFC 3339)", .format("date-time"))
        case .attestationPolicy: FieldDoc(nil, .enumeration(["any", "self_or_trusted", "trusted"]))
        case .aaguidAllow:
            FieldDoc(
                "Only these AAGUIDs may register; absent when any may", .items(["type": "string", "format": "uuid"]))
        case .aaguidDeny: FieldDoc("These AAGUIDs may not register", .items(["type": "string", "format": "uuid"]))
        case .tokenSigningAlg:
            FieldDoc("The algorithm of its login tokens and OAuth tokens", .enumeration(["RS256", "ES256", "EdDSA"]))
        case .appleAppIDs: FieldDoc("iOS apps in apple-app-site-association")
        case .androidApps: .ref(named: "AndroidApp", "Android apps in assetlinks.json")
        case .dpopNonce: FieldDoc("DPoP server nonces", .enumeration(["off", "required"]))
        case .webhookURL: FieldDoc("The webhook receiver")
        case .webhookSecret:
            FieldDoc("The webhook signing secret (umfa_whs_...), only in the answer that first set a webhook_url")
        case .allowedScopes: FieldDoc("The scopes a self-registered client may ask for")
        case .resourceIndicators: FieldDoc("The resource indicators (RFC 8707) access tokens may be issued for")
        case .hints: .ref(.credentialHints)
        case .attestationFormats: FieldDoc("Preferred attestation statement formats, most preferred first")
        case .credentialProtectionPolicy:
            FieldDoc(
                "The credProtect level registrations ask for; absent for none",
                .enumeration([
                    "userVerificationOptional", "userVerificationOptionalWithCredentialIDList",
                    "userVerificationRequired",
                ]))
        case .enforceCredentialProtectionPolicy:
            FieldDoc("Whether browsers must refuse authenticators that cannot apply it")
        case .introspectionClients: FieldDoc("The admin-made clients that may introspect any client's tokens")
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
