import Crypto
import Foundation
import UMFAEncoding
import UMFAWebAuthnModel
import _CryptoExtras

/// How a credential's private key is sealed at rest.
public struct KeyProtection: Codable, Sendable, Hashable {
    /// The secret that also protects the key, or `nil` for the device key alone.
    public var secretKind: SecretKind?
    /// The scrypt salt, with a secret.
    public var salt: Base64URLBytes?
    /// scrypt cost parameter N (a power of two), with a secret.
    public var rounds: Int?

    /// Device key only.
    public static let deviceKeyOnly = KeyProtection(secretKind: nil, salt: nil, rounds: nil)
}

/// What a credential keeps sealed.
struct CredentialSecrets {
    /// The credential's private key.
    let key: P256.Signing.PrivateKey
    /// Its hmac-secret values; `nil` for a credential made before them or without them.
    let credRandom: CredRandom?
}

/// A sealed ``CredentialSecrets`` and how it is sealed.
struct SealedCredential {
    let sealedKey: [UInt8]
    let sealedCredRandom: [UInt8]?
    let protection: KeyProtection
}

/// Seals private keys with AES-GCM under a key the ``DeviceKeyProvider`` derives from the
/// device key and, when the user chose one, a PIN or password stretched with scrypt
/// (memory-hard), so neither a copy of the files without the device key nor the device key
/// without the secret opens them.
struct KeySealer: Sendable {
    let deviceKey: any DeviceKeyProvider
    /// scrypt N for new seals (r = 8, p = 1; memory 128 · N · r bytes).
    let scryptRounds: Int

    /// The largest N a stored seal may name: 2^20 (1 GiB). A larger or odd value is damage,
    /// refused before scrypt would try to allocate it.
    static let largestStoredRounds = 1 << 20

    /// Whether a seal opened with its secret should be sealed again at today's cost.
    func isWeakerThanNew(_ protection: KeyProtection) -> Bool {
        guard protection.secretKind != nil, let rounds = protection.rounds else { return false }
        return rounds < scryptRounds
    }

    /// Seals a credential's private key and, when it has them, its CredRandom values, each
    /// with AES-GCM under the same wrapping key (so one scrypt run serves both) and bound to
    /// the credential id.
    func seal(_ secrets: CredentialSecrets, credentialID: [UInt8], secret: (SecretKind, String)?)
        throws(AuthenticatorError) -> SealedCredential
    {
        var protection = KeyProtection.deviceKeyOnly
        if let (kind, _) = secret {
            protection = KeyProtection(
                secretKind: kind, salt: Base64URLBytes(SecureRandom.bytes(16)), rounds: scryptRounds)
        }
        let wrapping = try wrappingKey(protection, secret: secret?.1)
        let sealedKey = try Self.seal(
            [UInt8](secrets.key.rawRepresentation), using: wrapping, authenticating: credentialID)
        let sealedCredRandom = try secrets.credRandom.map { (credRandom) throws(AuthenticatorError) in
            try Self.seal(
                credRandom.withUV + credRandom.withoutUV, using: wrapping,
                authenticating: credentialID + CredRandom.sealingContext)
        }
        return SealedCredential(sealedKey: sealedKey, sealedCredRandom: sealedCredRandom, protection: protection)
    }

    /// Opens a sealed key (and CredRandom values, when sealed); `nil` when the secret is
    /// wrong (the seal does not authenticate).
    func open(_ credential: CredentialSource, secret: String?) throws(AuthenticatorError) -> CredentialSecrets? {
        let credentialID = credential.id.bytes
        let wrapping = try wrappingKey(credential.protection, secret: secret)
        guard let raw = try Self.open(credential.sealedPrivateKey.bytes, using: wrapping, authenticating: credentialID)
        else { return nil }
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw AuthenticatorError(.invalidData, "a stored credential is damaged")
        }
        guard let sealedCredRandom = credential.sealedCredRandom?.bytes else {
            return CredentialSecrets(key: key, credRandom: nil)
        }
        guard
            let both = try Self.open(
                sealedCredRandom, using: wrapping, authenticating: credentialID + CredRandom.sealingContext),
            both.count == 2 * CredRandom.length
        else { throw AuthenticatorError(.invalidData, "a stored credential is damaged") }
        let credRandom = CredRandom(
            withUV: Array(both.prefix(CredRandom.length)), withoutUV: Array(both.suffix(CredRandom.length)))
        return CredentialSecrets(key: key, credRandom: credRandom)
    }

    private static func seal(_ plaintext: [UInt8], using key: SymmetricKey, authenticating data: [UInt8])
        throws(AuthenticatorError) -> [UInt8]
    {
        guard let box = try? AES.GCM.seal(plaintext, using: key, authenticating: data), let combined = box.combined
        else { throw AuthenticatorError(.storageFailure, "sealing failed") }
        return [UInt8](combined)
    }

    /// The plaintext, or `nil` when `key` does not open the box.
    private static func open(_ sealed: [UInt8], using key: SymmetricKey, authenticating data: [UInt8])
        throws(AuthenticatorError) -> [UInt8]?
    {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else {
            throw AuthenticatorError(.invalidData, "a stored credential is damaged")
        }
        guard let plaintext = try? AES.GCM.open(box, using: key, authenticating: data) else { return nil }
        return [UInt8](plaintext)
    }

    private func wrappingKey(_ protection: KeyProtection, secret: String?) throws(AuthenticatorError) -> SymmetricKey {
        guard protection.secretKind != nil else { return try deviceKey.deriveSealingKey(from: []) }
        guard let secret, let salt = protection.salt?.bytes, let rounds = protection.rounds else {
            throw AuthenticatorError(.userVerificationFailed, "this credential needs its PIN or password")
        }
        guard rounds >= 2, rounds <= Self.largestStoredRounds, rounds & (rounds - 1) == 0 else {
            throw AuthenticatorError(.invalidData, "a stored credential is damaged")
        }
        let stretched: SymmetricKey
        do {
            stretched = try KDF.Scrypt.deriveKey(
                from: Array(secret.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: 8,
                parallelism: 1)
        } catch {
            throw AuthenticatorError(.storageFailure, "key derivation failed")
        }
        return try deviceKey.deriveSealingKey(from: stretched.withUnsafeBytes { [UInt8]($0) })
    }
}
