import Crypto

/// Holds the device key, the secret that every credential's sealing key is derived from
/// (together with the stretched PIN or password), and derives those sealing keys.
///
/// The device key itself never has to leave the provider: the authenticator hands over the
/// scrypt output of the PIN or password and gets back the AES key for one seal. A platform
/// keystore can therefore implement this protocol with a key it cannot export — an HMAC key in
/// the Android Keystore, or a Secure Enclave P-256 key used for key agreement on iOS — and
/// then a copy of the credential files is useless anywhere else: every PIN guess needs the
/// device itself. ``DeviceKeyFile`` (a 32-byte file beside the credentials) is the default,
/// and ``InMemoryDeviceKey`` serves tools and tests.
public protocol DeviceKeyProvider: Sendable {
    /// Derives the 256-bit AES key that seals one private key.
    ///
    /// - Parameter material: the scrypt output of the PIN or password, or empty for a
    ///   credential protected by the device key alone.
    /// - Returns: the same key for the same `material`, on every call and in every process
    ///   that uses this device's key; different keys for different `material`.
    /// - Throws: ``AuthenticatorError`` (`storageFailure` when the keystore is unavailable,
    ///   `invalidData` when its key is damaged); the message never holds key material.
    func deriveSealingKey(from material: [UInt8]) throws(AuthenticatorError) -> SymmetricKey
}

/// A device key held in memory: what ``DeviceKeyFile`` loads, and a fresh random key for an
/// authenticator whose credentials live only as long as the process.
public struct InMemoryDeviceKey: DeviceKeyProvider {
    private let key: SymmetricKey

    /// Uses `key`; a new random 256-bit key by default.
    public init(_ key: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.key = key
    }

    /// HKDF-SHA256 over device key ‖ `material`, info `umfa credential key v1`, no salt.
    public func deriveSealingKey(from material: [UInt8]) -> SymmetricKey {
        let input = key.withUnsafeBytes { [UInt8]($0) } + material
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: input), info: Array("umfa credential key v1".utf8),
            outputByteCount: 32)
    }
}
