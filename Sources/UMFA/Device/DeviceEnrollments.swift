import Foundation
import Synchronization
import UMFAAuthenticator

/// The device's own record of which users of which application it holds a passkey for, so
/// ``UMFAClient/checkEnrollment(userId:)`` answers without the network. Kept as
/// `enrollments.json` (mode 0600) beside the key store.
final class DeviceEnrollments: Sendable {
    struct Entry: Codable, Hashable, Sendable {
        var applicationId: String
        var userId: String
        var credentialId: String
        var rpId: String
        var enrolledAt: Date
        var userVerification: String
        /// The hash of the biometric set the passkey is bound to (`invalidateOnNewOsBiometrics`),
        /// base64url SHA-256; `nil`, and absent from the file, when it is not bound. Files
        /// written before the field existed load as unbound.
        var biometricSetHash: String?
        /// Whether a biometric passkey's sign-ins may fall back to the device passcode
        /// (`allowDevicePasscodeAsFallback`, a `devicePasscodeFallback` at enrollment); `nil`,
        /// and absent from the file, for other passkeys and files written before the field
        /// existed: the configuration decides then.
        var devicePasscodeFallback: Bool? = nil
    }

    private let directory: URL
    private let file: URL
    private let lock = Mutex(())

    init(directory: URL) {
        self.directory = directory
        file = directory.appendingPathComponent("enrollments.json")
    }

    func entry(applicationId: String, userId: String) throws(ZSMError) -> Entry? {
        try load().first { $0.applicationId == applicationId && $0.userId == userId }
    }

    /// Every user of `applicationId` this device holds a passkey for, oldest enrollment first.
    func entries(applicationId: String) throws(ZSMError) -> [Entry] {
        try load().filter { $0.applicationId == applicationId }.sorted { $0.enrolledAt < $1.enrolledAt }
    }

    func record(_ entry: Entry) throws(ZSMError) {
        try update { entries in
            entries.removeAll { $0.applicationId == entry.applicationId && $0.userId == entry.userId }
            entries.append(entry)
        }
    }

    func remove(applicationId: String, userId: String) throws(ZSMError) {
        try update { $0.removeAll { $0.applicationId == applicationId && $0.userId == userId } }
    }

    private func load() throws(ZSMError) -> [Entry] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode([Entry].self, from: data)
        } catch {
            throw ZSMError(.keyStoreDamaged, "\(file.lastPathComponent) is damaged")
        }
    }

    private func update(_ change: (inout [Entry]) -> Void) throws(ZSMError) {
        try lock.withLock { _ throws(ZSMError) in
            try DirectoryLock.withLock(
                on: directory, unavailable: { ZSMError(.keyStoreDamaged, "cannot lock \(directory.path)") }
            ) { () throws(ZSMError) in try write(change) }
        }
    }

    /// Reads, changes and writes the list; the caller holds the locks.
    private func write(_ change: (inout [Entry]) -> Void) throws(ZSMError) {
        var entries = try load()
        change(&entries)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        do {
            try AtomicFile.write(try encoder.encode(entries), to: file)
        } catch {
            throw ZSMError(.keyStoreDamaged, "cannot write \(file.path)")
        }
    }
}
