import Crypto
import Foundation
import UMFAEncoding

/// The key that seals secrets at rest (token signing keys): 32 bytes, from
/// `UMFA_MASTER_KEY` or from a generated key file of mode 0600 in the data directory.
package struct MasterKey: Sendable {
    let key: SymmetricKey

    /// Why a master key could not be had.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, without the key itself.
        package let description: String
    }

    /// Reads a key given as base64 (standard or URL-safe, padded or not) of exactly 32 bytes.
    package init(base64 text: String) throws(Failure) {
        var standard = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        guard let data = Data(base64Encoded: standard), data.count == 32 else {
            throw Failure(
                description:
                    "UMFA_MASTER_KEY must be 32 random bytes in base64 (for example the output of `openssl rand -base64 32`)"
            )
        }
        key = SymmetricKey(data: data)
    }

    /// Wraps raw key bytes (32 of them).
    init(bytes: [UInt8]) {
        key = SymmetricKey(data: bytes)
    }

    /// The key's public name: base64url of the first 12 bytes of SHA-256 over a label and the
    /// key. It tells two keys apart in the audit log and a rotation's marker without revealing
    /// either.
    package var id: String {
        var hash = SHA256()
        hash.update(data: Array("UMFA master key id".utf8) + [0])
        key.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return Base64URL.encode(Array(hash.finalize().prefix(12)))
    }

    /// The key in `directory`'s `master.key`, or `nil` when there is none; never creates one.
    package static func load(in directory: URL) throws -> MasterKey? {
        try read(directory.appendingPathComponent("master.key"))
    }

    /// The key in `file` (as ``read(file:)`` takes it), or `nil` when there is no such file.
    package static func load(file: URL) throws -> MasterKey? {
        try read(file)
    }

    /// The key in `file`: 32 bytes, or their base64 (`openssl rand -base64 32`), in a file of
    /// the running user that others may not read (as `master.key`).
    package static func read(file: URL) throws -> MasterKey {
        guard let key = try read(file) else { throw Failure(description: "\(file.path) does not exist") }
        return key
    }

    /// Puts this key in `directory`'s file `name` (`master.key`) in place of the one there:
    /// written to a new file of mode 0600, synced, then renamed over the old one, so a crash
    /// leaves one whole key or the other, never half of one.
    package func replaceFile(named name: String = "master.key", in directory: URL) throws {
        let file = directory.appendingPathComponent(name)
        var template = Array((file.path + ".XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Failure(description: "cannot create a file in \(directory.path)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == 32, synced, rename(temporary, file.path) == 0 else {
            unlink(temporary)
            throw Failure(description: "cannot write \(file.path)")
        }
        // The rename itself is made durable by syncing the folder.
        if let folder = FileHandle(forReadingAtPath: directory.path) {
            _ = fsync(folder.fileDescriptor)
            try? folder.close()
        }
    }

    /// Whether `other` is the same key.
    package func isSame(as other: MasterKey) -> Bool {
        key.withUnsafeBytes { mine in other.key.withUnsafeBytes { theirs in mine.elementsEqual(theirs) } }
    }

    /// Loads `master.key` from `directory`, creating it with mode 0600 when absent.
    ///
    /// An existing file is refused, naming the path and the fix, when its mode gives the group
    /// or others any access (0600 and 0400 are fine, 0640 is not) or when the user running the
    /// server does not own it: a key others could read, or swap, protects nothing.
    ///
    /// The key is written to a temporary file that `mkstemp` creates (`O_CREAT | O_EXCL`, mode
    /// 0600 from the start, never widened afterwards) and then linked into place, so it is
    /// never readable by others, not even for a moment, a reader never sees half a key, and
    /// two servers starting together on one data directory end up with the same key.
    package static func loadOrCreate(in directory: URL) throws -> MasterKey {
        let file = directory.appendingPathComponent("master.key")
        if let existing = try read(file) { return existing }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) }
        var template = Array((file.path + ".XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Failure(description: "cannot create a file in \(directory.path)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(temporary) }
        let written = fresh.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == fresh.count, synced else { throw Failure(description: "cannot write \(file.path)") }
        guard link(temporary, file.path) == 0 else {
            if errno == EEXIST, let existing = try read(file) { return existing }
            throw Failure(description: "cannot create \(file.path)")
        }
        return MasterKey(bytes: fresh)
    }

    /// The key in `file`, or `nil` when there is none; refused when others may read it or the
    /// running user does not own it. The checks look at the opened file itself (`fstat`), so
    /// what is checked is what is read.
    private static func read(_ file: URL) throws -> MasterKey? {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
            throw Failure(description: "cannot read \(file.path)")
        }
        defer { try? handle.close() }
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0 else { throw Failure(description: "cannot read \(file.path)") }
        guard status.st_uid == geteuid() else {
            throw Failure(
                description:
                    "\(file.path) belongs to user id \(status.st_uid), not to the user running UMFA (\(geteuid())): "
                    + "give it to that user and keep it private (`chown $(id -un) \(file.path) && chmod 600 \(file.path)`)"
            )
        }
        guard status.st_mode & 0o077 == 0 else {
            throw Failure(
                description:
                    "\(file.path) may be read or changed by others (mode \(String(status.st_mode & 0o777, radix: 8))): "
                    + "run `chmod 600 \(file.path)`"
            )
        }
        let data: Data
        do {
            data = try handle.read(upToCount: 129) ?? Data()
        } catch {
            throw Failure(description: "cannot read \(file.path)")
        }
        if data.count == 32 { return MasterKey(bytes: [UInt8](data)) }
        // Base64 text of 32 bytes (a key made with `openssl rand -base64 32 > file`).
        guard data.count <= 128, let text = String(data: data, encoding: .utf8), let key = try? MasterKey(base64: text)
        else {
            throw Failure(description: "\(file.path) is damaged: it must hold exactly 32 bytes, or their base64")
        }
        return key
    }

    /// Encrypts and authenticates `plaintext`, binding it to `context` (for example a key id).
    package func seal(_ plaintext: [UInt8], context: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Array(context.utf8))
        guard let combined = box.combined else { throw Failure(description: "sealing failed") }
        return [UInt8](combined)
    }

    /// Decrypts what ``seal(_:context:)`` produced for the same context.
    package func open(_ sealed: [UInt8], context: String) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return [UInt8](try AES.GCM.open(box, using: key, authenticating: Array(context.utf8)))
        } catch {
            throw Failure(
                description: "a sealed secret does not open with this master key (was UMFA_MASTER_KEY changed?)")
        }
    }
}
