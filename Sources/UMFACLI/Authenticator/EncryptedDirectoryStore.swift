import Crypto
import Foundation
import UMFAAuthenticator

/// The virtual authenticator's credential store: one file, `credentials.sealed`, holding the
/// credentials encrypted with AES-GCM under a random device key kept in `device.key`
/// (mode 0600). Writes go to a temporary file that replaces the old one, so a crash leaves
/// either the old or the new state, never a torn one.
final class EncryptedDirectoryStore: CredentialStore {
    private let directory: URL
    private let key: SymmetricKey
    private var file: URL { directory.appendingPathComponent("credentials.sealed") }

    init(directory: URL) throws {
        self.directory = directory
        let manager = FileManager.default
        try manager.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyFile = directory.appendingPathComponent("device.key")
        if let data = manager.contents(atPath: keyFile.path) {
            guard data.count == 32 else {
                throw AuthenticatorError(.invalidData, "\(keyFile.path) is damaged (expected 32 bytes)")
            }
            key = SymmetricKey(data: data)
        } else {
            let newKey = SymmetricKey(size: .bits256)
            let bytes = newKey.withUnsafeBytes { Data($0) }
            guard manager.createFile(atPath: keyFile.path, contents: bytes, attributes: [.posixPermissions: 0o600])
            else {
                throw AuthenticatorError(.storageFailure, "cannot write \(keyFile.path)")
            }
            key = newKey
        }
    }

    func credentials(rpID: String) throws(AuthenticatorError) -> [CredentialSource] {
        try all().filter { $0.rpID == rpID }
    }

    func save(_ credential: CredentialSource) throws(AuthenticatorError) {
        var credentials = try all()
        credentials.removeAll { $0.id == credential.id }
        credentials.append(credential)
        try write(credentials)
    }

    func delete(id: [UInt8]) throws(AuthenticatorError) {
        try write(try all().filter { $0.id.bytes != id })
    }

    private func all() throws(AuthenticatorError) -> [CredentialSource] {
        guard let sealed = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            let plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key)
            return try JSONDecoder().decode([CredentialSource].self, from: plain)
        } catch {
            throw AuthenticatorError(.invalidData, "\(file.path) is damaged or was sealed with another device key")
        }
    }

    private func write(_ credentials: [CredentialSource]) throws(AuthenticatorError) {
        do {
            let plain = try JSONEncoder().encode(credentials)
            guard let sealed = try AES.GCM.seal(plain, using: key).combined else {
                throw AuthenticatorError(.storageFailure, "sealing failed")
            }
            try AtomicFile.write(sealed, to: file)
        } catch let error as AuthenticatorError {
            throw error
        } catch {
            throw AuthenticatorError(.storageFailure, "cannot save credentials in \(directory.path)")
        }
    }
}
