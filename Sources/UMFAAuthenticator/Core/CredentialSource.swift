import Foundation
import UMFAEncoding
import UMFAWebAuthnModel

/// A credential as the authenticator keeps it (WebAuthn L3 §6.1 "public key credential
/// source"): the sealed private key, the RP and user it belongs to, and its signature counter.
public struct CredentialSource: Sendable, Hashable, Codable {
    /// The credential id.
    public let id: Base64URLBytes
    /// The RP ID the credential is scoped to.
    public let rpID: String
    /// The user handle the relying party gave.
    public let userHandle: Base64URLBytes
    /// The account name the relying party gave.
    public let userName: String
    /// The display name the relying party gave.
    public let userDisplayName: String
    /// The P-256 private key, sealed with AES-GCM (see ``KeyProtection``).
    public var sealedPrivateKey: Base64URLBytes
    /// How the private key is sealed.
    public var protection: KeyProtection
    /// The two hmac-secret CredRandom values (CTAP 2.1 §12.5), sealed like the private key;
    /// `nil` for a credential made before them or by an authenticator without `hmac-secret`,
    /// which then supports no PRF.
    public var sealedCredRandom: Base64URLBytes?
    /// The credential's `credProtect` level (CTAP 2.1 §12.1); level 1 for a credential made before it.
    public let credentialProtection: CredentialProtectionPolicy
    /// The credential public key (COSE), kept so a relying party's key can be shown without unsealing.
    public let publicKey: Base64URLBytes
    /// The signature counter; it only ever grows.
    public var signCount: UInt32
    /// Wrong PINs or passwords given for this credential since its secret was last given
    /// right. Only a right secret for this same credential sets it back to 0; at
    /// ``SoftwareAuthenticator/maximumFailedAttempts`` the credential is locked for good.
    public var failedVerificationAttempts: Int
    /// Whether the credential is discoverable (client-side).
    public let discoverable: Bool
    /// When the credential was created.
    public let createdAt: Date

    /// Creates a credential source.
    public init(
        id: [UInt8], rpID: String, userHandle: [UInt8], userName: String, userDisplayName: String,
        sealedPrivateKey: [UInt8], protection: KeyProtection, sealedCredRandom: [UInt8]? = nil,
        credentialProtection: CredentialProtectionPolicy = .userVerificationOptional, publicKey: [UInt8],
        signCount: UInt32 = 0, failedVerificationAttempts: Int = 0, discoverable: Bool, createdAt: Date
    ) {
        self.id = Base64URLBytes(id)
        self.rpID = rpID
        self.userHandle = Base64URLBytes(userHandle)
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.sealedPrivateKey = Base64URLBytes(sealedPrivateKey)
        self.protection = protection
        self.sealedCredRandom = sealedCredRandom.map(Base64URLBytes.init)
        self.credentialProtection = credentialProtection
        self.publicKey = Base64URLBytes(publicKey)
        self.signCount = signCount
        self.failedVerificationAttempts = failedVerificationAttempts
        self.discoverable = discoverable
        self.createdAt = createdAt
    }

    /// Decodes a credential; a record written before attempts were counted per credential
    /// has no `failedVerificationAttempts` and reads as 0 (``DirectoryCredentialStore``
    /// carries its old device-wide count over); one written before hmac-secret and credProtect
    /// has no CredRandom and protection level 1.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Base64URLBytes.self, forKey: .id)
        rpID = try container.decode(String.self, forKey: .rpID)
        userHandle = try container.decode(Base64URLBytes.self, forKey: .userHandle)
        userName = try container.decode(String.self, forKey: .userName)
        userDisplayName = try container.decode(String.self, forKey: .userDisplayName)
        sealedPrivateKey = try container.decode(Base64URLBytes.self, forKey: .sealedPrivateKey)
        protection = try container.decode(KeyProtection.self, forKey: .protection)
        sealedCredRandom = try container.decodeIfPresent(Base64URLBytes.self, forKey: .sealedCredRandom)
        credentialProtection =
            try container.decodeIfPresent(CredentialProtectionPolicy.self, forKey: .credentialProtection)
            ?? .userVerificationOptional
        publicKey = try container.decode(Base64URLBytes.self, forKey: .publicKey)
        signCount = try container.decode(UInt32.self, forKey: .signCount)
        failedVerificationAttempts =
            try container.decodeIfPresent(Int.self, forKey: .failedVerificationAttempts) ?? 0
        guard failedVerificationAttempts >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .failedVerificationAttempts, in: container, debugDescription: "a negative attempt count")
        }
        discoverable = try container.decode(Bool.self, forKey: .discoverable)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }
}
