import Crypto
import Foundation
import Synchronization
import UMFAWebAuthn

/// A credential store in a directory: one file per credential (`credentials/<id>.json`,
/// its private key sealed), the attempt counter in `state.json`, and the random device key in
/// `device.key`. Every file has mode 0600 and the directory 0700. Writes go to a temporary
/// file that is flushed to disk and renamed over the old one, so a crash leaves the old or the
/// new content, and a sign counter never goes backwards.
public final class DirectoryCredentialStore: CredentialStore {
    /// The directory.
    public let directory: URL
    /// The device key that seals the private keys.
    public let deviceKey: SymmetricKey
    private let lock = Mutex(())

    /// Opens (creating when needed) a store in `directory`.
    /// - Throws: ``AuthenticatorError`` `invalidData` when `device.key` is damaged.
    public init(directory: URL) throws(AuthenticatorError) {
        self.directory = directory
        let manager = FileManager.default
        do {
            try manager.createDirectory(
                at: directory.appendingPathComponent("credentials"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot create \(directory.path)")
        }
        let keyFile = directory.appendingPathComponent("device.key")
        if let data = manager.contents(atPath: keyFile.path) {
            guard data.count == 32 else {
                throw AuthenticatorError(
                    .invalidData,
                    "the device key \(keyFile.path) is damaged (\(data.count) bytes, expected 32); "
                        + "the passkeys it sealed cannot be opened")
            }
            deviceKey = SymmetricKey(data: data)
        } else {
            let key = SymmetricKey(size: .bits256)
            do {
                try AtomicFile.write(key.withUnsafeBytes { Data($0) }, to: keyFile, exclusive: true)
                deviceKey = key
            } catch {
                // Another process created it first: use theirs.
                guard let data = manager.contents(atPath: keyFile.path), data.count == 32 else {
                    throw AuthenticatorError(.storageFailure, "cannot create \(keyFile.path)")
                }
                deviceKey = SymmetricKey(data: data)
            }
        }
    }

    private var credentialsDirectory: URL { directory.appendingPathComponent("credentials") }

    private func file(for id: [UInt8]) -> URL {
        credentialsDirectory.appendingPathComponent(Hex.encode(id) + ".json")
    }

    /// Every credential; a damaged file is reported, never skipped silently.
    /// - Throws: `invalidData` naming the first damaged key file.
    public func allCredentials() throws(AuthenticatorError) -> [CredentialSource] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: credentialsDirectory.path)
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot read \(credentialsDirectory.path)")
        }
        var credentials: [CredentialSource] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let credential = try read(credentialsDirectory.appendingPathComponent(name)) else { continue }
            credentials.append(credential)
        }
        return credentials
    }

    /// The credential with `id`, read from its own file only: another credential's damaged
    /// file does not affect it.
    /// - Throws: `invalidData` when this credential's file is damaged.
    public func credential(id: [UInt8]) throws(AuthenticatorError) -> CredentialSource? {
        guard let credential = try read(file(for: id)) else { return nil }
        guard credential.id.bytes == id else {
            throw AuthenticatorError(.invalidData, Self.damaged(file(for: id), "it holds another credential"))
        }
        return credential
    }

    /// Reads one key file; `nil` when it does not exist.
    private func read(_ url: URL) throws(AuthenticatorError) -> CredentialSource? {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            guard !FileManager.default.fileExists(atPath: url.path) else {
                throw AuthenticatorError(.invalidData, Self.damaged(url, "it cannot be read"))
            }
            return nil
        }
        do {
            return try JSONDecoder().decode(CredentialSource.self, from: data)
        } catch {
            throw AuthenticatorError(.invalidData, Self.damaged(url, "it is not a credential record"))
        }
    }

    private static func damaged(_ url: URL, _ reason: String) -> String {
        "the key file credentials/\(url.lastPathComponent) is damaged (\(reason)); "
            + "its passkey cannot be used, enroll again to replace it"
    }

    /// Writes one credential's file atomically.
    public func save(_ credential: CredentialSource) throws(AuthenticatorError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try lock.withLock { _ in
                try AtomicFile.write(try encoder.encode(credential), to: file(for: credential.id.bytes))
            }
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot save a credential in \(directory.path)")
        }
    }

    /// Removes one credential's file.
    public func delete(id: [UInt8]) throws(AuthenticatorError) {
        let path = file(for: id).path
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot remove a credential from \(directory.path)")
        }
    }

    /// Runs `body` holding an exclusive lock on the directory, shared with other processes
    /// (another `umfa` command, another app extension) that use the same directory.
    public func exclusively<Value>(_ body: () throws(AuthenticatorError) -> Value) throws(AuthenticatorError)
        -> Value
    {
        try DirectoryLock.withLock(
            on: directory, unavailable: { AuthenticatorError(.storageFailure, "cannot lock \(directory.path)") }, body)
    }

    private struct State: Codable {
        var failedVerificationAttempts: Int
    }

    private var stateFile: URL { directory.appendingPathComponent("state.json") }

    /// Consecutive failed PIN or password attempts.
    public func failedVerificationAttempts() throws(AuthenticatorError) -> Int {
        guard let data = FileManager.default.contents(atPath: stateFile.path) else { return 0 }
        guard let state = try? JSONDecoder().decode(State.self, from: data) else {
            throw AuthenticatorError(.invalidData, "\(stateFile.path) is damaged")
        }
        return state.failedVerificationAttempts
    }

    /// Records the count of consecutive failed attempts, durably.
    public func setFailedVerificationAttempts(_ count: Int) throws(AuthenticatorError) {
        do {
            try AtomicFile.write(try JSONEncoder().encode(State(failedVerificationAttempts: count)), to: stateFile)
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot save \(stateFile.path)")
        }
    }
}
