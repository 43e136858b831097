import Foundation
import UMFATokens

/// How an application lets a user add a credential (DESIGN.md §2).
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
    /// Whether people may create accounts on the hosted pages (DESIGN.md §5).
    public var signup: SignupSetting
    /// The algorithm of its login tokens and OAuth tokens (DESIGN.md §2, §5).
    public var tokenSigningAlgorithm: TokenSigningAlgorithm
    /// Its iOS apps, `TEAMID.bundle.id`, published in `apple-app-site-association`.
    public var appleAppIDs: [String]
    /// Its Android apps, published in `assetlinks.json`.
    public var androidApps: [AndroidAppIdentity]
    /// Whether DPoP proofs must carry a server nonce (RFC 9449 §8): `off` or `required`.
    public var dpopNonce: DPoPNonceSetting
    /// Where out-of-band transaction changes are POSTed (DESIGN.md §7); `nil` for none.
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

/// A registered credential with the record §7.1 step 27 describes and what the server adds.
public struct StoredCredential: Sendable, Hashable {
    /// The application.
    public var applicationID: UUID
    /// The owner's user id.
    public var userID: String
    /// The credential id.
    public var credentialID: [UInt8]
    /// The COSE public key.
    public var publicKey: [UInt8]
    /// The last sign count.
    public var signCount: UInt32
    /// The authenticator's AAGUID.
    public var aaguid: [UInt8]
    /// Transports the authenticator reported.
    public var transports: [String]
    /// BE at registration.
    public var backupEligible: Bool
    /// BS as last seen.
    public var backupState: Bool
    /// Whether the user was ever verified with it.
    public var uvInitialized: Bool
    /// The attestation format at registration.
    public var attestationFormat: String
    /// A name for the device, given at enrollment.
    public var deviceName: String?
    /// When it was registered.
    public var createdAt: Date
    /// When it was last used to sign in.
    public var lastUsedAt: Date?
    /// The authenticator model's name from FIDO metadata, such as "YubiKey 5 Series with NFC".
    public var authenticatorName: String?
    /// Whether the client said the credential is discoverable (`credProps.rk`, WebAuthn L3
    /// §10.1.3); `nil` when it did not say.
    public var discoverable: Bool?
    /// Whether the client said the credential supports PRF (`prf.enabled`, WebAuthn L3
    /// §10.1.4); `nil` when it did not say.
    public var prfEnabled: Bool?

    /// Creates a credential record.
    public init(
        applicationID: UUID, userID: String, credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32,
        aaguid: [UInt8], transports: [String], backupEligible: Bool, backupState: Bool, uvInitialized: Bool,
        attestationFormat: String, deviceName: String?, createdAt: Date, lastUsedAt: Date?,
        authenticatorName: String? = nil
    ) {
        self.authenticatorName = authenticatorName
        self.applicationID = applicationID
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.aaguid = aaguid
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.uvInitialized = uvInitialized
        self.attestationFormat = attestationFormat
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// The ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable, Codable {
    /// Registration (§7.1).
    case registration
    /// Authentication (§7.2), also used by unenroll and credential validation.
    case authentication
    /// An out-of-band enrollment's registration (DESIGN.md §7): answered only at `dispatch/complete`.
    case outOfBandRegistration = "oob_registration"
    /// An out-of-band approval's assertion (DESIGN.md §7): answered only at `dispatch/complete`.
    case outOfBandApproval = "oob_approval"
}

/// An issued challenge, bound to application, user and ceremony, used at most once.
public struct ChallengeRecord: Sendable, Hashable {
    /// The challenge bytes.
    public var challenge: [UInt8]
    /// The application.
    public var applicationID: UUID
    /// The user it was issued for, or `nil` for a discoverable sign-in.
    public var userID: String?
    /// The ceremony.
    public var ceremony: CeremonyKind
    /// The user verification requirement in the options.
    public var userVerification: UserVerificationSetting
    /// For registrations granted by an enrollment token: when the application last checked
    /// the user's password.
    public var userpwTime: Date?
    /// When it stops being accepted.
    public var expiresAt: Date
    /// The credential ids the request options listed in `allowCredentials`, checked again at
    /// verification (§7.2 step 5); empty when none were listed.
    public var allowCredentials: [[UInt8]]
    /// For registrations: what allowed this one to start, checked again at verification.
    public var grant: RegistrationGrantKind?
    /// For registrations granted by an enrollment token: the token's hash. The token is spent
    /// when the registration is verified, not when options are asked for, so a client that
    /// lost the options response can ask again with the same token.
    public var enrollmentTokenHash: [UInt8]?

    /// Creates a challenge record.
    public init(
        challenge: [UInt8], applicationID: UUID, userID: String?, ceremony: CeremonyKind,
        userVerification: UserVerificationSetting,
        userpwTime: Date? = nil, expiresAt: Date, allowCredentials: [[UInt8]] = [],
        grant: RegistrationGrantKind? = nil, enrollmentTokenHash: [UInt8]? = nil
    ) {
        self.challenge = challenge
        self.applicationID = applicationID
        self.userID = userID
        self.ceremony = ceremony
        self.userVerification = userVerification
        self.userpwTime = userpwTime
        self.expiresAt = expiresAt
        self.allowCredentials = allowCredentials
        self.grant = grant
        self.enrollmentTokenHash = enrollmentTokenHash
    }
}

/// What allowed a registration to start (DESIGN.md §2, enrollment policy).
public enum RegistrationGrantKind: String, Sendable, Codable {
    /// The `open` policy, for a user without credentials: valid only while the user still has
    /// none when the registration is verified.
    case openFirstEnrollment = "open-first"
    /// An enrollment token from the application's backend, spent at verification.
    case enrollmentToken = "enrollment-token"
    /// A recent login token of the user (the `open` policy, adding a device).
    case loginToken = "login-token"
    /// Account creation on the hosted pages (DESIGN.md §5): a new user with a generated id,
    /// governed by the application's `signup` setting; valid only while the user has no credential.
    case signUp = "sign-up"
    /// An out-of-band enrollment the application's backend started (DESIGN.md §7), redeemed by
    /// the phone with its dispatch token.
    case outOfBand = "out-of-band"
}

/// A single-use enrollment grant, stored only as a hash.
public struct EnrollmentTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    public var tokenHash: [UInt8]
    /// The application.
    public var applicationID: UUID
    /// The user it grants enrollment to.
    public var userID: String
    /// When the application last checked the user's password, if it said.
    public var userpwTime: Date?
    /// When it stops being accepted.
    public var expiresAt: Date

    /// Creates an enrollment token record.
    public init(tokenHash: [UInt8], applicationID: UUID, userID: String, userpwTime: Date?, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.applicationID = applicationID
        self.userID = userID
        self.userpwTime = userpwTime
        self.expiresAt = expiresAt
    }
}
