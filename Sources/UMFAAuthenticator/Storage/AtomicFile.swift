import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Crash-safe file replacement: write a temporary file with mode 0600, flush it to disk,
/// rename it over the target and flush the directory, so readers see the old or the new
/// content, never a mix, and a completed write survives a crash.
public enum AtomicFile {
    /// Why a write failed.
    public struct WriteError: Error, CustomStringConvertible {
        let path: String
        let operation: String
        let code: Int32
        /// The path, the operation and the errno.
        public var description: String { "cannot \(operation) \(path) (errno \(code))" }
    }

    /// Writes `data` to `url`. With `exclusive`, fails when `url` already exists.
    public static func write(_ data: Data, to url: URL, exclusive: Bool = false) throws {
        let temporary = url.path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw WriteError(path: temporary, operation: "create", code: errno) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            while written < buffer.count {
                #if canImport(Glibc)
                    let result = Glibc.write(descriptor, base + written, buffer.count - written)
                #else
                    let result = Darwin.write(descriptor, base + written, buffer.count - written)
                #endif
                guard result > 0 else { return false }
                written += result
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard ok, synced else {
            unlink(temporary)
            throw WriteError(path: temporary, operation: "write", code: errno)
        }
        if exclusive {
            // link() fails when the target exists, unlike rename().
            defer { unlink(temporary) }
            guard link(temporary, url.path) == 0 else {
                throw WriteError(path: url.path, operation: "create", code: errno)
            }
        } else {
            guard rename(temporary, url.path) == 0 else {
                unlink(temporary)
                throw WriteError(path: url.path, operation: "replace", code: errno)
            }
        }
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
