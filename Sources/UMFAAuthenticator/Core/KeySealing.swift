import Crypto
import Foundation
import UMFAEncoding
import UMFAWebAuthn
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

    func seal(_ key: P256.Signing.PrivateKey, credentialID: [UInt8], secret: (SecretKind, String)?)
        throws(AuthenticatorError) -> (sealed: [UInt8], protection: KeyProtection)
    {
        var protection = KeyProtection.deviceKeyOnly
        if let (kind, _) = secret {
            protection = KeyProtection(
                secretKind: kind, salt: Base64URLBytes(SecureRandom.bytes(16)), rounds: scryptRounds)
        }
        let wrapping = try wrappingKey(protection, secret: secret?.1)
        do {
            let box = try AES.GCM.seal(key.rawRepresentation, using: wrapping, authenticating: credentialID)
            guard let combined = box.combined else { throw AuthenticatorError(.storageFailure, "sealing failed") }
            return ([UInt8](combined), protection)
        } catch let error as AuthenticatorError {
            throw error
        } catch {
            throw AuthenticatorError(.storageFailure, "sealing failed")
        }
    }

    /// Opens a sealed key; `nil` when the secret is wrong (the seal does not authenticate).
    func open(_ sealed: [UInt8], credentialID: [UInt8], protection: KeyProtection, secret: String?)
        throws(AuthenticatorError) -> P256.Signing.PrivateKey?
    {
        let wrapping = try wrappingKey(protection, secret: secret)
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else {
            throw AuthenticatorError(.invalidData, "a stored credential is damaged")
        }
        guard let raw = try? AES.GCM.open(box, using: wrapping, authenticating: credentialID) else { return nil }
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw AuthenticatorError(.invalidData, "a stored credential is damaged")
        }
        return key
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
