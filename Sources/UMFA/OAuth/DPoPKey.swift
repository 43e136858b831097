import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAWebAuthnModel

/// The device's DPoP key (RFC 9449): a P-256 key the SDK keeps in the storage location, sealed
/// like the passkeys, so tokens bound to it stay usable across launches and are worth nothing
/// on another device. The default ``DPoPKeyProvider``.
public struct DPoPKey: DPoPKeyProvider {
    let key: P256.Signing.PrivateKey

    /// The public JWK that goes in each proof's header.
    public var publicJWK: [String: String] { DeviceSigningKeys.jwkMembers(key) }

    /// A new key (not stored).
    public init() { key = P256.Signing.PrivateKey() }

    init(key: P256.Signing.PrivateKey) { self.key = key }

    /// The key of `config`'s storage location for `issuer`, made and stored on first use.
    static func stored(config: ZSMConfig, issuer: String) throws(ZSMError) -> DPoPKey {
        let keys = DeviceSigningKeys(
            config: config, folder: "dpop-keys", sealingMaterial: Array("umfa dpop key v1".utf8))
        if let found = try keys.load(applicationId: "dpop", userId: issuer) { return DPoPKey(key: found.key) }
        let key = P256.Signing.PrivateKey()
        try keys.save(key, applicationId: "dpop", userId: issuer, credentialId: "dpop")
        return DPoPKey(key: key)
    }

    /// `ES256`.
    public var algorithm: String { "ES256" }

    /// ECDSA P-256 over SHA-256 of `signingInput`, `R ‖ S` (RFC 7518 §3.4).
    public func sign(_ signingInput: [UInt8]) throws -> [UInt8] {
        Array(try key.signature(for: SHA256.hash(data: signingInput)).rawRepresentation)
    }
}
