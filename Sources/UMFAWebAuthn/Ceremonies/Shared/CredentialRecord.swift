import UMFAWebAuthnTypes

/// What a relying party stores about a credential (WebAuthn L3 §4, "credential record").
public struct CredentialRecord: Sendable, Hashable {
    /// The credential id.
    public var id: [UInt8]
    /// The credential public key.
    public var publicKey: COSEKey
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The user handle of the account that owns the credential.
    public var userHandle: [UInt8]
    /// Whether the authenticator has ever verified the user with this credential.
    public var uvInitialized: Bool
    /// The transports the authenticator said it can use.
    public var transports: [AuthenticatorTransport]
    /// BE at registration; it never changes afterwards.
    public var backupEligible: Bool
    /// BS as last seen.
    public var backupState: Bool
    /// The authenticator model's AAGUID.
    public var aaguid: [UInt8]

    /// Creates a record.
    public init(
        id: [UInt8], publicKey: COSEKey, signCount: UInt32, userHandle: [UInt8], uvInitialized: Bool,
        transports: [AuthenticatorTransport] = [], backupEligible: Bool, backupState: Bool,
        aaguid: [UInt8] = Array(repeating: 0, count: 16)
    ) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.uvInitialized = uvInitialized
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.aaguid = aaguid
    }
}
