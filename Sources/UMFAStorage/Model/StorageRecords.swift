import Foundation
import UMFATokens

/// How an application lets a user add a credential (docs/contract.md §2).
package enum EnrollmentPolicy: String, Sendable, Codable, CaseIterable {
    /// A user without credentials may enroll without a grant. For development only.
    case open
    /// Every registration needs an enrollment token from the application's backend.
    case grant
}

/// Whether ceremonies require user verification (WebAuthn `userVerification`).
package enum UserVerificationSetting: String, Sendable, Codable, CaseIterable {
    /// Every ceremony must verify the user.
    case required
    /// Verify when the authenticator can (the default).
    case preferred
    /// Do not ask for verification.
    case discouraged
}

/// The attestation conveyance registrations ask for (WebAuthn `attestation`).
package enum AttestationConveyanceSetting: String, Sendable, Codable, CaseIterable {
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
package enum AttestationPolicySetting: String, Sendable, Codable, CaseIterable {
    /// Any, including `none` (the default).
    case any
    /// Self attestation or a chain to a trusted root.
    case selfOrTrusted = "self_or_trusted"
    /// Only a chain to a trusted root.
    case trusted
}

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

/// Whether an application's DPoP proofs must carry a nonce the server gave (RFC 9449 §8).
package enum DPoPNonceSetting: String, Sendable, Codable, CaseIterable {
    /// No nonce needed (the default).
    case off
    /// Every proof carries a recent server nonce.
    case required
}

/// An Android app of an application, as Digital Asset Links names it.
package struct AndroidAppIdentity: Sendable, Hashable, Codable {
    /// The app's package name, such as `com.example.app`.
    package var packageName: String
    /// SHA-256 fingerprints of its signing certificates, colon-separated upper-case hex.
    package var sha256CertFingerprints: [String]

    /// Creates an app identity.
    package init(packageName: String, sha256CertFingerprints: [String]) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case sha256CertFingerprints = "sha256_cert_fingerprints"
    }
}

/// Whether an application accepts new accounts from its hosted pages and API-driven flow.
package enum SignupSetting: String, Sendable, Codable, CaseIterable {
    /// People may create accounts (the default).
    case enabled
    /// Only the application's backend creates users.
    case disabled
}

/// A user of an application: the application's own id and UMFA's random user handle.
package struct UserRecord: Sendable, Hashable {
    /// The application the user belongs to.
    package var applicationID: UUID
    /// The application's identifier for the user.
    package var userID: String
    /// The WebAuthn user handle: random bytes, never the user id.
    package var userHandle: [UInt8]
    /// The name shown by authenticators.
    package var displayName: String
    /// When the user was first seen.
    package var createdAt: Date

    /// Creates a user record.
    package init(applicationID: UUID, userID: String, userHandle: [UInt8], displayName: String, createdAt: Date) {
        self.applicationID = applicationID
        self.userID = userID
        self.userHandle = userHandle
        self.displayName = displayName
        self.createdAt = createdAt
    }
}
