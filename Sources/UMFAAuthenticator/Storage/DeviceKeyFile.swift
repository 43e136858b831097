import Crypto
import Foundation

/// The default ``DeviceKeyProvider``: 32 random bytes in `device.key` (mode 0600) in the
/// credential directory, created on first use.
///
/// Anyone who copies the whole directory, this file included, can test PIN or password
/// guesses offline at the cost of one scrypt per guess; the attempt counter does not stop
/// that. Where a platform keystore exists, a provider that keeps the key in it, unexportable,
/// is the stronger choice (see docs/threat-model.md, "Stolen device").
public struct DeviceKeyFile: DeviceKeyProvider {
    /// The key file.
    public let url: URL
    private let key: InMemoryDeviceKey

    /// Reads `device.key` in `directory`, creating it when there is none. Two processes that
    /// start at once end up with the same key.
    /// - Throws: ``AuthenticatorError`` `invalidData` when the file is damaged,
    ///   `storageFailure` when it cannot be created.
    public init(directory: URL) throws(AuthenticatorError) {
        url = directory.appendingPathComponent("device.key")
        let manager = FileManager.default
        if let data = manager.contents(atPath: url.path) {
            guard data.count == 32 else {
                throw AuthenticatorError(
                    .invalidData,
                    "the device key \(url.path) is damaged (\(data.count) bytes, expected 32); "
                        + "the passkeys it sealed cannot be opened")
            }
            key = InMemoryDeviceKey(SymmetricKey(data: data))
            return
        }
        let fresh = SymmetricKey(size: .bits256)
        do {
            try AtomicFile.write(fresh.withUnsafeBytes { Data($0) }, to: url, exclusive: true)
            key = InMemoryDeviceKey(fresh)
        } catch {
            // Another process created it first: use theirs.
            guard let data = manager.contents(atPath: url.path), data.count == 32 else {
                throw AuthenticatorError(.storageFailure, "cannot create \(url.path)")
            }
            key = InMemoryDeviceKey(SymmetricKey(data: data))
        }
    }

    /// HKDF-SHA256 over the file's key ‖ `material` (see ``InMemoryDeviceKey``).
    public func deriveSealingKey(from material: [UInt8]) -> SymmetricKey {
        key.deriveSealingKey(from: material)
    }
}
