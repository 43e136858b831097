import Foundation
import UMFATokens

/// A registered credential with the record §7.1 step 27 describes and what the server adds.
package struct StoredCredential: Sendable, Hashable {
    /// The application.
    package var applicationID: UUID
    /// The owner's user id.
    package var userID: String
    /// The credential id.
    package var credentialID: [UInt8]
    /// The COSE public key.
    package var publicKey: [UInt8]
    /// The last sign count.
    package var signCount: UInt32
    /// The authenticator's AAGUID.
    package var aaguid: [UInt8]
    /// Transports the authenticator reported.
    package var transports: [String]
    /// BE at registration.
    package var backupEligible: Bool
    /// BS as last seen.
    package var backupState: Bool
    /// Whether the user was ever verified with it.
    package var uvInitialized: Bool
    /// The attestation format at registration.
    package var attestationFormat: String
    /// A name for the device, given at enrollment.
    package var deviceName: String?
    /// When it was registered.
    package var createdAt: Date
    /// When it was last used to sign in.
    package var lastUsedAt: Date?
    /// The authenticator model's name from FIDO metadata, such as "YubiKey 5 Series with NFC".
    package var authenticatorName: String?
    /// Whether the client said the credential is discoverable (`credProps.rk`, WebAuthn L3
    /// §10.1.3); `nil` when it did not say.
    package var discoverable: Bool?
    /// Whether the client said the credential supports PRF (`prf.enabled`, WebAuthn L3
    /// §10.1.4); `nil` when it did not say.
    package var prfEnabled: Bool?
    /// Whether its attestation chained to one of the server's attestation roots at
    /// registration (WebAuthn L3 §7.1 step 24): what the `urn:umfa:acr:attested` level rests on.
    /// `false` for passkeys registered before it was recorded.
    package var attestationTrusted = false

    /// Creates a credential record.
    package init(
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
package enum CeremonyKind: String, Sendable, Codable {
    /// Registration (§7.1).
    case registration
    /// Authentication (§7.2), also used by unenroll and credential validation.
    case authentication
    /// An out-of-band enrollment's registration (docs/contract.md §7): answered only at `dispatch/complete`.
    case outOfBandRegistration = "oob_registration"
    /// An out-of-band approval's assertion (docs/contract.md §7): answered only at `dispatch/complete`.
    case outOfBandApproval = "oob_approval"
}

/// An issued challenge, bound to application, user and ceremony, used at most once.
package struct ChallengeRecord: Sendable, Hashable {
    /// The challenge bytes.
    package var challenge: [UInt8]
    /// The application.
    package var applicationID: UUID
    /// The user it was issued for, or `nil` for a discoverable sign-in.
    package var userID: String?
    /// The ceremony.
    package var ceremony: CeremonyKind
    /// The user verification requirement in the options.
    package var userVerification: UserVerificationSetting
    /// For registrations granted by an enrollment token: when the application last checked
    /// the user's password.
    package var userpwTime: Date?
    /// When it stops being accepted.
    package var expiresAt: Date
    /// The credential ids the request options listed in `allowCredentials`, checked again at
    /// verification (§7.2 step 5); empty when none were listed.
    package var allowCredentials: [[UInt8]]
    /// For registrations: what allowed this one to start, checked again at verification.
    package var grant: RegistrationGrantKind?
    /// For registrations granted by an enrollment token: the token's hash. The token is spent
    /// when the registration is verified, not when options are asked for, so a client that
    /// lost the options response can ask again with the same token.
    package var enrollmentTokenHash: [UInt8]?

    /// Creates a challenge record.
    package init(
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

/// What allowed a registration to start (docs/contract.md §2, enrollment policy).
package enum RegistrationGrantKind: String, Sendable, Codable {
    /// The `open` policy, for a user without credentials: valid only while the user still has
    /// none when the registration is verified.
    case openFirstEnrollment = "open-first"
    /// An enrollment token from the application's backend, spent at verification.
    case enrollmentToken = "enrollment-token"
    /// A recent login token of the user (the `open` policy, adding a device).
    case loginToken = "login-token"
    /// Account creation on the hosted pages (docs/contract.md §5): a new user with a generated id,
    /// governed by the application's `signup` setting; valid only while the user has no credential.
    case signUp = "sign-up"
    /// An out-of-band enrollment the application's backend started (docs/contract.md §7), redeemed by
    /// the phone with its dispatch token.
    case outOfBand = "out-of-band"
}

/// A single-use enrollment grant, stored only as a hash.
package struct EnrollmentTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    package var tokenHash: [UInt8]
    /// The application.
    package var applicationID: UUID
    /// The user it grants enrollment to.
    package var userID: String
    /// When the application last checked the user's password, if it said.
    package var userpwTime: Date?
    /// When it stops being accepted.
    package var expiresAt: Date

    /// Creates an enrollment token record.
    package init(tokenHash: [UInt8], applicationID: UUID, userID: String, userpwTime: Date?, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.applicationID = applicationID
        self.userID = userID
        self.userpwTime = userpwTime
        self.expiresAt = expiresAt
    }
}
