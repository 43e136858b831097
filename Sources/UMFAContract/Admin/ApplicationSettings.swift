import Foundation
import UMFAEncoding

/// The settings of an application (a WebAuthn relying party and OpenID provider), by their wire
/// names: the one declaration that the admin API's requests (``ApplicationSettingsRequest``,
/// ``CreateApplicationRequest``), its answers (``ApplicationResponse``), `openapi.yaml` and
/// `umfa admin --set` share. Every member is optional: a request names the settings it
/// changes, and an answer has every setting that has a value.
///
/// A new setting is a member here (with its ``CodingKeys`` case, its place in ``example`` and
/// its documentation at the end of this file), a stored column (`ApplicationRecord`), and its
/// reading and showing in the admin service (docs/development.md, "Configured objects,
/// declared once").
public struct ApplicationSettings: Codable, Sendable, Equatable {
    /// The application's name.
    public var name: String?
    /// The WebAuthn RP ID, a domain such as `example.com`.
    public var rpID: String?
    /// The name authenticators show; the application's name when absent.
    public var rpName: String?
    /// Web origins and native-app origins (`ios:bundle-id:…`, `android:apk-key-hash:…`).
    public var origins: [String]?
    /// Web origins of other sites that may use the RP ID too (WebAuthn L3 §5.11), published at
    /// `https://<rp_id>/.well-known/webauthn`; at most 5 distinct labels. Default none.
    public var relatedOrigins: [String]?
    /// `open` or `grant` (the default).
    public var enrollmentPolicy: String?
    /// `required`, `preferred` (the default) or `discouraged`.
    public var userVerification: String?
    /// `none` (the default), `indirect`, `direct` or `enterprise`.
    public var attestation: String?
    /// Login-token lifetime in seconds (30–86,400; default 300).
    public var tokenTTLSeconds: Int?
    /// `any` (the default), `self_or_trusted` or `trusted`.
    public var attestationPolicy: String?
    /// Only these AAGUIDs may register (empty or absent: any).
    public var aaguidAllow: [String]?
    /// These AAGUIDs may not register.
    public var aaguidDeny: [String]?
    /// `enabled` (the default) or `disabled`: whether people may create accounts on the hosted
    /// pages and through the API-driven flow (docs/contract.md §5).
    public var signup: String?
    /// `RS256` (the default), `ES256` or `EdDSA`: the algorithm of the application's login
    /// tokens and OAuth tokens.
    public var tokenSigningAlg: String?
    /// iOS apps (`TEAMID.bundle.id`) published in `/.well-known/apple-app-site-association`.
    public var appleAppIDs: [String]?
    /// Android apps published in `/.well-known/assetlinks.json`.
    public var androidApps: [AndroidApp]?
    /// `off` (the default) or `required`: whether DPoP proofs must carry a server nonce (RFC 9449 §8).
    public var dpopNonce: String?
    /// Where out-of-band transaction changes are POSTed (https, or http to a loopback address);
    /// `""` removes it. Setting one the first time answers `webhook_secret` once.
    public var webhookURL: String?
    /// The scopes a client that registers itself (RFC 7591) may ask for; default the standard
    /// OpenID Connect scopes `openid profile email phone offline_access`.
    public var allowedScopes: [String]?
    /// The resource indicators (RFC 8707, absolute URIs) the application's access tokens may be
    /// issued for as `aud`; each belongs to one application only. Default none.
    public var resourceIndicators: [String]?
    /// Hints for the user agent in every options answer, most preferred first (WebAuthn L3
    /// §5.4): `security-key`, `client-device`, `hybrid`; `[]` for none (the default).
    public var hints: [String]?
    /// Preferred attestation statement formats, most preferred first (WebAuthn L3 §5.4
    /// `attestationFormats`); `[]` for no preference (the default).
    public var attestationFormats: [String]?
    /// The credential protection level registrations ask for (CTAP 2.1 `credProtect`):
    /// `userVerificationOptional`, `userVerificationOptionalWithCredentialIDList` or
    /// `userVerificationRequired`; `""` asks for none (the default), and an answer then leaves
    /// it out.
    public var credentialProtectionPolicy: String?
    /// Whether clients must refuse authenticators that cannot apply that level (default false).
    public var enforceCredentialProtectionPolicy: Bool?
    /// The admin-made confidential clients (client ids) that may introspect tokens issued to any
    /// of the application's clients, such as a resource server (RFC 7662); every other client
    /// sees only its own tokens as active. Default none.
    public var introspectionClients: [String]?
    /// Whether a person who lost every passkey may get a link to register a new one by mail, at
    /// the account's verified address (default true; needs the server to send mail).
    public var emailRecovery: Bool?
    /// The RFC 9396 `authorization_details` types the application's clients may ask for (default
    /// none: the parameter is refused).
    public var authorizationDetailsTypes: [String]?

    /// Creates settings; `nil` members are absent.
    public init(
        name: String? = nil, rpID: String? = nil, rpName: String? = nil, origins: [String]? = nil,
        relatedOrigins: [String]? = nil, enrollmentPolicy: String? = nil, userVerification: String? = nil,
        attestation: String? = nil, tokenTTLSeconds: Int? = nil, attestationPolicy: String? = nil,
        aaguidAllow: [String]? = nil, aaguidDeny: [String]? = nil, signup: String? = nil,
        tokenSigningAlg: String? = nil, appleAppIDs: [String]? = nil, androidApps: [AndroidApp]? = nil,
        dpopNonce: String? = nil, webhookURL: String? = nil, allowedScopes: [String]? = nil,
        resourceIndicators: [String]? = nil, hints: [String]? = nil, attestationFormats: [String]? = nil,
        credentialProtectionPolicy: String? = nil, enforceCredentialProtectionPolicy: Bool? = nil,
        introspectionClients: [String]? = nil, emailRecovery: Bool? = nil, authorizationDetailsTypes: [String]? = nil
    ) {
        self.name = name
        self.rpID = rpID
        self.rpName = rpName
        self.origins = origins
        self.relatedOrigins = relatedOrigins
        self.enrollmentPolicy = enrollmentPolicy
        self.userVerification = userVerification
        self.attestation = attestation
        self.tokenTTLSeconds = tokenTTLSeconds
        self.attestationPolicy = attestationPolicy
        self.aaguidAllow = aaguidAllow
        self.aaguidDeny = aaguidDeny
        self.signup = signup
        self.tokenSigningAlg = tokenSigningAlg
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
        self.dpopNonce = dpopNonce
        self.webhookURL = webhookURL
        self.allowedScopes = allowedScopes
        self.resourceIndicators = resourceIndicators
        self.hints = hints
        self.attestationFormats = attestationFormats
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        self.introspectionClients = introspectionClients
        self.emailRecovery = emailRecovery
        self.authorizationDetailsTypes = authorizationDetailsTypes
    }

    /// The settings' wire names: the only place they are written.
    public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case name, origins, attestation, signup, hints
        case rpID = "rp_id"
        case rpName = "rp_name"
        case relatedOrigins = "related_origins"
        case enrollmentPolicy = "enrollment_policy"
        case userVerification = "user_verification"
        case tokenTTLSeconds = "token_ttl_seconds"
        case attestationPolicy = "attestation_policy"
        case aaguidAllow = "aaguid_allow"
        case aaguidDeny = "aaguid_deny"
        case tokenSigningAlg = "token_signing_alg"
        case appleAppIDs = "apple_app_ids"
        case androidApps = "android_apps"
        case dpopNonce = "dpop_nonce"
        case webhookURL = "webhook_url"
        case allowedScopes = "allowed_scopes"
        case resourceIndicators = "resource_indicators"
        case attestationFormats = "attestation_formats"
        case credentialProtectionPolicy = "credential_protection_policy"
        case enforceCredentialProtectionPolicy = "enforce_credential_protection_policy"
        case introspectionClients = "introspection_clients"
        case emailRecovery = "email_recovery"
        case authorizationDetailsTypes = "authorization_details_types"

        /// Whether every answer about an application has the setting: all but those that are
        /// absent when they have no value.
        public var isAlwaysAnswered: Bool {
            switch self {
            case .aaguidAllow, .webhookURL, .credentialProtectionPolicy: false
            default: true
            }
        }
    }

    /// The settings a wire name names, as ``CodingKeys``; for messages and `umfa admin --set`.
    public typealias Member = CodingKeys

    /// Decodes the settings of an answer, where every member that
    /// ``CodingKeys/isAlwaysAnswered`` must be present.
    public init(answerFrom decoder: any Decoder) throws {
        self = try ApplicationSettings(from: decoder)
        try decoder.requireMembers(Member.allCases.filter(\.isAlwaysAnswered))
    }

    /// The wire names of the members that are present, sorted (for the audit log: the names
    /// say what changed; the values may be long).
    public var presentMembers: [String] {
        guard let data = try? JSONEncoder().encode(self),
            let members = try? JSONDecoder().decode([String: JSONValue].self, from: data)
        else { return [] }
        return members.filter { $0.value != .null }.keys.sorted()
    }

    /// The settings with `member` set to `value` (JSON), as `umfa admin --set name=value`
    /// gives them; throws when the member is unknown or the value does not fit its type.
    public func setting(_ member: Member, to value: JSONValue) throws -> ApplicationSettings {
        var object = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(self))
        object[member.stringValue] = value
        return try JSONDecoder().decode(ApplicationSettings.self, from: JSONEncoder().encode(object))
    }

    /// An example with every member.
    public static let example = ApplicationSettings(
        name: "Shop", rpID: "shop.example", rpName: "Shop", origins: ["https://shop.example"],
        relatedOrigins: ["https://shop.example.co.uk"], enrollmentPolicy: "grant", userVerification: "preferred",
        attestation: "none", tokenTTLSeconds: 300, attestationPolicy: "any", aaguidAllow: [], aaguidDeny: [],
        signup: "enabled", tokenSigningAlg: "RS256", appleAppIDs: ["ABCDE12345.com.example.shop"],
        androidApps: [.example], dpopNonce: "off", webhookURL: "https://shop.example/umfa-webhook",
        allowedScopes: ["openid", "profile", "email"], resourceIndicators: ["https://api.shop.example"],
        hints: ["client-device", "hybrid"], attestationFormats: ["packed", "none"],
        credentialProtectionPolicy: "userVerificationOptionalWithCredentialIDList",
        enforceCredentialProtectionPolicy: false, introspectionClients: ["umfa_ci_x"], emailRecovery: true,
        authorizationDetailsTypes: ["payment_initiation"])
}

/// A body that carries an application's ``ApplicationSettings`` flat beside its own members;
/// each setting reads through it (`response.rpID`).
@dynamicMemberLookup
public protocol ApplicationSettingsCarrier {
    /// The application's settings.
    var settings: ApplicationSettings { get set }
}

extension ApplicationSettingsCarrier {
    /// A setting of the application.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ApplicationSettings, Value>) -> Value {
        get { settings[keyPath: keyPath] }
        set { settings[keyPath: keyPath] = newValue }
    }
}

// MARK: - openapi.yaml

extension ApplicationSettings: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .name: FieldDoc("The application's name", .minLength(1))
        case .origins:
            FieldDoc(
                "Web origins (https://app.example.com, http://localhost:8080) and native-app origins (ios:bundle-id:com.example.app, android:apk-key-hash:<b64url>), matched exactly"
            )
        case .attestation:
            FieldDoc(
                "The attestation conveyance registrations ask for (default none)",
                .enumeration(["none", "indirect", "direct", "enterprise"]))
        case .signup:
            FieldDoc(
                "Whether people may create accounts on the hosted pages (default enabled)",
                .enumeration(["enabled", "disabled"]))
        case .rpID: FieldDoc("The WebAuthn RP ID, a domain such as example.com")
        case .rpName: FieldDoc("The name authenticators show; the application's name when absent")
        case .relatedOrigins:
            FieldDoc(
                "Related origins (WebAuthn L3 §5.11): web origins of other sites that may use the RP ID, published at https://<rp_id>/.well-known/webauthn and accepted as clientDataJSON.origin. https://host[:port] (http only for localhost), no path; at most 5 distinct labels (the first label of an origin's registrable domain: shop for https://www.shop.co.uk), counted over every application of the RP ID; an empty list removes them; default none",
                .maxItems(50))
        case .enrollmentPolicy:
            FieldDoc(
                "grant (the default) needs an enrollment token for every registration; open lets whoever first names a user_id enroll it, for development and demos only",
                .enumeration(["open", "grant"]))
        case .userVerification:
            FieldDoc(
                "The user verification ceremonies ask for (default preferred)",
                .enumeration(["required", "preferred", "discouraged"]))
        case .tokenTTLSeconds: FieldDoc("Login-token lifetime in seconds (default 300)", .minimum(30), .maximum(86400))
        case .attestationPolicy:
            FieldDoc(
                "Which attestations a registration must carry (default any)",
                .enumeration(["any", "self_or_trusted", "trusted"]))
        case .aaguidAllow:
            FieldDoc(
                "Only these AAGUIDs may register; an empty list allows any",
                .items(["type": "string", "format": "uuid"]))
        case .aaguidDeny: FieldDoc("These AAGUIDs may not register", .items(["type": "string", "format": "uuid"]))
        case .tokenSigningAlg:
            FieldDoc(
                "The algorithm of the application's login tokens and OAuth tokens (default RS256)",
                .enumeration(["RS256", "ES256", "EdDSA"]))
        case .appleAppIDs:
            FieldDoc("iOS apps (TEAMID.bundle.id) published in /.well-known/apple-app-site-association", .maxItems(50))
        case .androidApps:
            .ref(named: "AndroidApp", "Android apps published in /.well-known/assetlinks.json", .maxItems(50))
        case .dpopNonce:
            FieldDoc(
                "Whether DPoP proofs must carry a server nonce (RFC 9449 §8; default off)",
                .enumeration(["off", "required"]))
        case .webhookURL:
            FieldDoc(
                "Where out-of-band transaction changes are POSTed: https, or http to a loopback address; empty removes it. The first one set answers webhook_secret once"
            )
        case .allowedScopes:
            FieldDoc(
                "The scopes a client that registers itself (RFC 7591) may ask for; default openid, profile, email, phone, offline_access",
                .maxItems(50))
        case .resourceIndicators:
            FieldDoc(
                "The resource indicators (RFC 8707, absolute URIs without fragment) access tokens may be issued for as aud; each belongs to one application only (409 otherwise); default none",
                .maxItems(50))
        case .hints: .ref(.credentialHints)
        case .attestationFormats:
            FieldDoc(
                "Preferred attestation statement formats, most preferred first (WebAuthn L3 §5.4 attestationFormats), distinct registered identifiers; [] for no preference (the default)",
                .items([
                    "type": "string",
                    "enum": [
                        "packed", "tpm", "android-key", "android-safetynet", "fido-u2f", "apple", "none", "compound",
                    ],
                ]))
        case .credentialProtectionPolicy:
            FieldDoc(
                "The CTAP 2.1 credProtect level registrations ask for (credentialProtectionPolicy extension input); empty for none (the default)",
                .enumeration([
                    "", "userVerificationOptional", "userVerificationOptionalWithCredentialIDList",
                    "userVerificationRequired",
                ]))
        case .enforceCredentialProtectionPolicy:
            FieldDoc("Whether browsers must refuse authenticators that cannot apply that level (default false)")
        case .introspectionClients:
            FieldDoc(
                "Admin-made confidential clients (client ids) that may introspect tokens issued to any of the application's clients, such as a resource server (RFC 7662); every other client sees only its own tokens as active, and a self-registered client may not introspect. At most 50; default none"
            )
        case .emailRecovery:
            FieldDoc(
                "Whether a person who lost every passkey may ask for a link, mailed to the account's verified address, to register a new one (default true; the server must send mail)"
            )
        case .authorizationDetailsTypes:
            FieldDoc(
                "The RFC 9396 authorization_details types the application's clients may ask for, at the authorization, PAR and CIBA endpoints and in out-of-band approvals (listed in discovery as authorization_details_types_supported); another type is invalid_authorization_details. At most 20 names of 1 to 64 printable ASCII characters; default none"
            )
        }
    }
}
