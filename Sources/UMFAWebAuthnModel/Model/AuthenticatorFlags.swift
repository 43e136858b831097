/// The flags byte of authenticator data (WebAuthn L3 §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    /// The raw flags byte.
    public let rawValue: UInt8
    /// Creates flags from the raw byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: the user was present.
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV: the user was verified.
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE: the credential may be backed up (synced).
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS: the credential is backed up now.
    public static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// AT: attested credential data follows.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED: extension data follows.
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)

    /// Whether UP is set.
    public var isUserPresent: Bool { contains(.userPresent) }
    /// Whether UV is set.
    public var isUserVerified: Bool { contains(.userVerified) }
    /// Whether BE is set.
    public var isBackupEligible: Bool { contains(.backupEligible) }
    /// Whether BS is set.
    public var isBackedUp: Bool { contains(.backupState) }
}
