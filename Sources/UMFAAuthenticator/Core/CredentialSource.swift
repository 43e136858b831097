import Crypto
import Foundation
import UMFAWebAuthn

/// A credential as the authenticator keeps it (WebAuthn L3 §6.1 "public key credential
/// source"): the private key, the RP and user it belongs to, and its signature counter.
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
    /// The P-256 private key, raw scalar. Stores must encrypt it at rest.
    public let privateKey: Base64URLBytes
    /// The signature counter; it only ever grows.
    public var signCount: UInt32
    /// Whether the credential is discoverable (client-side).
    public let discoverable: Bool
    /// When the credential was created.
    public let createdAt: Date

    /// Creates a credential source.
    public init(
        id: [UInt8], rpID: String, userHandle: [UInt8], userName: String, userDisplayName: String,
        privateKey: P256.Signing.PrivateKey, signCount: UInt32 = 0, discoverable: Bool, createdAt: Date
    ) {
        self.id = Base64URLBytes(id)
        self.rpID = rpID
        self.userHandle = Base64URLBytes(userHandle)
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.privateKey = Base64URLBytes([UInt8](privateKey.rawRepresentation))
        self.signCount = signCount
        self.discoverable = discoverable
        self.createdAt = createdAt
    }

    /// The private key, parsed.
    func signingKey() throws(AuthenticatorError) -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: privateKey.bytes)
        } catch {
            throw AuthenticatorError(.invalidData, "the stored private key of a credential is damaged")
        }
    }

    /// The credential's public key in COSE form.
    public func publicKey() throws(AuthenticatorError) -> COSEKey {
        COSEKey(p256: try signingKey().publicKey)
    }
}
