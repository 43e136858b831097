import Foundation
import UMFATokens

/// How an application lets a user add a credential (docs/contract.md §2).
public enum EnrollmentPolicy: String, Sendable, Codable, CaseIterable {
    /// A user without credentials may enroll without a grant. For development only.
    case open
    /// Every registration needs an enrollment token from the application's backend.
    case grant
}

/// Whether ceremonies require user verification (WebAuthn `userVerification`).
public enum UserVerificationSetting: String, Sendable, Codable, CaseIterable {
    /// Every ceremony must verify the user.
    case required
    /// Verify when the authenticator can (the default).
    case preferred
    /// Do not ask for verification.
    case discouraged
}

/// The attestation conveyance registrations ask for (WebAuthn `attestation`).
public enum AttestationConveyanceSetting: String, Sendable, Codable, CaseIterable {
    /// No attestation (the default): browsers replace any with `none`.
    case none
    /// An attestation the client may anonymise.
    case indirect
    /// The authenticator's attestation as it is.
    case direct
    /// An enterprise attestation that identifies the device.
    case enterprise
}

/// Which attestations a registration must carry to be accepted.
public enum AttestationPolicySetting: String, Sendable, Codable, CaseIterable {
    /// Any, including `none` (the default).
    case any
    /// Self attestation or a chain to a trusted root.
    case selfOrTrusted = "self_or_trusted"
    /// Only a chain to a trusted root.
    case trusted
}

/// An application (a relying party) and its settings.
public struct ApplicationRecord: Sendable, Hashable {
    /// The application id.
    public var id: UUID
    /// A human name for the admin console.
    public var name: String
    /// The WebAuthn RP ID.
    public var rpID: String
    /// The RP name shown by authenticators.
    public var rpName: String
    /// The allowed origins, web and native, matched exactly.
    public var origins: [String]
    /// The origins of other sites that may use ``rpID`` too (WebAuthn L3 §5.11), web origins
    /// matched exactly, published at `https://<rp_id>/.well-known/webauthn`.
    public var relatedOrigins: [String]
    /// Who may enroll.
    public var enrollmentPolicy: EnrollmentPolicy
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: UserVerificationSetting
    /// `none`, `indirect`, `direct` or `enterprise`.
    public var attestation: AttestationConveyanceSetting
    /// The lifetime of login tokens, in seconds.
    public var tokenTTLSeconds: Int
    /// When the application was created.
    public var createdAt: Date
    /// Which attestations registration accepts: `any`, `self_or_trusted` or `trusted`.
    public var attestationPolicy: AttestationPolicySetting
    /// When set, only these authenticator models (AAGUIDs) may register.
    public var aaguidAllow: [String]?
    /// Authenticator models (AAGUIDs) that may never register.
    public var aaguidDeny: [String]
    /// Whether people may create accounts on the hosted pages (docs/contract.md §5).
    public var signup: SignupSetting
    /// The algorithm of its login tokens and OAuth tokens (docs/contract.md §2, §5).
    public var tokenSigningAlgorithm: TokenSigningAlgorithm
    /// Its iOS apps, `TEAMID.bundle.id`, published in `apple-app-site-association`.
    public var appleAppIDs: [String]
    /// Its Android apps, published in `assetlinks.json`.
    public var androidApps: [AndroidAppIdentity]
    /// Whether DPoP proofs must carry a server nonce (RFC 9449 §8): `off` or `required`.
    public var dpopNonce: DPoPNonceSetting
    /// Where out-of-band transaction changes are POSTed (docs/contract.md §7); `nil` for none.
    public var webhookURL: String?
    /// The webhook signing secret, sealed with the master key.
    public var sealedWebhookSecret: [UInt8]?
    /// The scopes a client that registers itself (RFC 7591) may ask for.
    public var allowedScopes: [String]
    /// The resource indicators (RFC 8707) the application's access tokens may be issued for;
    /// each names one application only.
    public var resourceIndicators: [String]
    /// What its options ask of clients: hints, attestation formats, credential protection.
    public var ceremonyPreferences = CeremonyPreferences()
    /// The admin-made confidential clients (client ids) that may introspect tokens issued to
    /// any of its clients (resource servers, RFC 7662); every other client sees only its own.
    public var introspectionClients: [String] = []

    /// The scopes ``allowedScopes`` holds by default: OpenID Connect Core §5.4 and §11.
    public static let standardScopes = ["openid", "profile", "email", "phone", "offline_access"]

    /// Creates an application record.
    public init(
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

/// Whether an application's DPoP proofs must carry a nonce the server gave (RFC 9449 §8).
public enum DPoPNonceSetting: String, Sendable, Codable, CaseIterable {
    /// No nonce needed (the default).
    case off
    /// Every proof carries a recent server nonce.
    case required
}

/// An Android app of an application, as Digital Asset Links names it.
public struct AndroidAppIdentity: Sendable, Hashable, Codable {
    /// The app's package name, such as `com.example.app`.
    public var packageName: String
    /// SHA-256 fingerprints of its signing certificates, colon-separated upper-case hex.
    public var sha256CertFingerprints: [String]

    /// Creates an app identity.
    public init(packageName: String, sha256CertFingerprints: [String]) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case sha256CertFingerprints = "sha256_cert_fingerprints"
    }
}

/// Whether an application accepts new accounts from its hosted pages and API-driven flow.
public enum SignupSetting: String, Sendable, Codable, CaseIterable {
    /// People may create accounts (the default).
    case enabled
    /// Only the application's backend creates users.
    case disabled
}

/// A user of an application: the application's own id and UMFA's random user handle.
public struct UserRecord: Sendable, Hashable {
    /// The application the user belongs to.
    public var applicationID: UUID
    /// The application's identifier for the user.
    public var userID: String
    /// The WebAuthn user handle: random bytes, never the user id.
    public var userHandle: [UInt8]
    /// The name shown by authenticators.
    public var displayName: String
    /// When the user was first seen.
    public var createdAt: Date

    /// Creates a user record.
    public init(applicationID: UUID, userID: String, userHandle: [UInt8], displayName: String, createdAt: Date) {
        self.applicationID = applicationID
        self.userID = userID
        self.userHandle = userHandle
        self.displayName = displayName
        self.createdAt = createdAt
    }
}
