import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Crash-safe file replacement: write a temporary file with mode 0600, flush it to disk,
/// then rename it over the target, so readers see the old or the new content, never a mix.
enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let operation: String
        var description: String { "cannot \(operation) \(path) (errno \(errno))" }
    }

    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw WriteError(path: temporary, operation: "create") }
        let written = data.withUnsafeBytes { buffer in
            buffer.baseAddress.map { Glibc.write(descriptor, $0, buffer.count) } ?? 0
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced else { throw WriteError(path: temporary, operation: "write") }
        guard rename(temporary, url.path) == 0 else { throw WriteError(path: url.path, operation: "replace") }
    }
}
