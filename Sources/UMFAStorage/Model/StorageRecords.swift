import Foundation

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
