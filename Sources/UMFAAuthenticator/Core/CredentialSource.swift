import Foundation
import UMFAWebAuthn

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
    /// The credential public key (COSE), kept so a relying party's key can be shown without unsealing.
    public let publicKey: Base64URLBytes
    /// The signature counter; it only ever grows.
    public var signCount: UInt32
    /// Whether the credential is discoverable (client-side).
    public let discoverable: Bool
    /// When the credential was created.
    public let createdAt: Date

    /// Creates a credential source.
    public init(
        id: [UInt8], rpID: String, userHandle: [UInt8], userName: String, userDisplayName: String,
        sealedPrivateKey: [UInt8], protection: KeyProtection, publicKey: [UInt8], signCount: UInt32 = 0,
        discoverable: Bool, createdAt: Date
    ) {
        self.id = Base64URLBytes(id)
        self.rpID = rpID
        self.userHandle = Base64URLBytes(userHandle)
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.sealedPrivateKey = Base64URLBytes(sealedPrivateKey)
        self.protection = protection
        self.publicKey = Base64URLBytes(publicKey)
        self.signCount = signCount
        self.discoverable = discoverable
        self.createdAt = createdAt
    }
}
