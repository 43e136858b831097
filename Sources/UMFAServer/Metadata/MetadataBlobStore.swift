import Foundation

/// The last FIDO metadata BLOB taken from `UMFA_METADATA_URL`, kept in the data directory as
/// `metadata-blob.jws` (docs/operators/metadata.md), so that a restart starts with it in force
/// and its serial number as the floor: a failed first download still leaves metadata in use, and
/// an older BLOB, however validly signed, is refused after a restart as before it.
///
/// The file is written whole or not at all (a temporary file renamed over it), mode 0600. It is
/// only a cache: whatever it holds is verified again at start, like a download.
struct MetadataBlobStore: Sendable {
    /// The file's name in the data directory.
    static let fileName = "metadata-blob.jws"
    let path: URL

    init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent(Self.fileName)
    }

    /// The stored BLOB and when it was written, or `nil` when there is no file.
    func read() throws -> (blob: String, savedAt: Date)? {
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        let data = try Data(contentsOf: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path.path)
        return (String(decoding: data, as: UTF8.self), attributes[.modificationDate] as? Date ?? Date())
    }

    /// Replaces the stored BLOB with `blob`: a temporary file beside it, renamed over it.
    func write(_ blob: String) throws {
        let directory = path.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(Self.fileName).\(UUID().uuidString).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: Data(blob.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, path.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}
