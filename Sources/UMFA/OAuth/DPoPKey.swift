import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAWebAuthn

/// The device's DPoP key (RFC 9449): a P-256 key the SDK keeps in the storage location, sealed
/// like the passkeys, so tokens bound to it stay usable across launches and are worth nothing
/// on another device.
public struct DPoPKey: Sendable {
    let key: P256.Signing.PrivateKey

    /// The public JWK that goes in each proof's header.
    public var publicJWK: [String: String] { DeviceSigningKeys.jwkMembers(key) }

    /// The RFC 7638 thumbprint, as `cnf.jkt` of a bound token names it.
    public var thumbprint: String { JWKThumbprint.compute(JWK(key.publicKey)) }

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

    /// A proof for a request of `method` to `url` (RFC 9449 §4.2): `htu` without query and
    /// fragment, `ath` when an access token goes with it, `nonce` when the server gave one.
    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date())
        throws(ZSMError) -> String
    {
        let claims = JWTClaims(
            iat: now.timeIntervalSince1970.rounded(.down), jti: UUID().uuidString.lowercased(), htm: method,
            htu: DeviceSigningKeys.htu(url),
            ath: accessToken.map { Base64URL.encode(Array(SHA256.hash(data: Array($0.utf8)))) }, nonce: nonce)
        return try DeviceSigningKeys.compactJWS(
            header: JWSHeader(algorithm: .es256, typ: "dpop+jwt", jwk: JWK(key.publicKey)), claims: claims, key: key)
    }
}
