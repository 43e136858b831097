import Foundation
import Synchronization
import UMFAEncoding
import UMFAWebAuthnModel

/// A credential store in a directory: one file per credential (`credentials/<id>.json`, its
/// private key sealed, its sign counter and its count of wrong PINs inside). Every file has
/// mode 0600 and the directory 0700. Writes go to a temporary file that is flushed to disk and
/// renamed over the old one, so a crash leaves the old or the new content, and no counter goes
/// backwards. The device key is not the store's business: ``DeviceKeyFile`` keeps it in
/// `device.key` here by default, a platform keystore elsewhere.
public final class DirectoryCredentialStore: CredentialStore {
    /// The directory.
    public let directory: URL
    private let lock = Mutex(())

    /// Opens (creating when needed) a store in `directory`.
    /// - Throws: ``AuthenticatorError`` `storageFailure` when the directory cannot be created.
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
        var credential: CredentialSource
        let counted: CountedRecord
        do {
            credential = try JSONDecoder().decode(CredentialSource.self, from: data)
            counted = try JSONDecoder().decode(CountedRecord.self, from: data)
        } catch {
            throw AuthenticatorError(.invalidData, Self.damaged(url, "it is not a credential record"))
        }
        if counted.failedVerificationAttempts == nil, credential.protection.secretKind != nil {
            credential.failedVerificationAttempts = try legacyFailedAttempts()
        }
        return credential
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

    /// Whether a record carries its own attempt count (records written before per-credential
    /// counting do not).
    private struct CountedRecord: Decodable {
        var failedVerificationAttempts: Int?
    }

    /// The device-wide count of wrong attempts that versions before per-credential counting
    /// kept in `state.json`: a record written then starts from it, so an upgrade gives no
    /// passkey fresh attempts. Nothing writes `state.json` any more.
    private func legacyFailedAttempts() throws(AuthenticatorError) -> Int {
        let stateFile = directory.appendingPathComponent("state.json")
        guard let data = FileManager.default.contents(atPath: stateFile.path) else { return 0 }
        struct State: Decodable { var failedVerificationAttempts: Int }
        guard let state = try? JSONDecoder().decode(State.self, from: data), state.failedVerificationAttempts >= 0
        else {
            throw AuthenticatorError(.invalidData, "\(stateFile.path) is damaged")
        }
        return state.failedVerificationAttempts
    }
}
