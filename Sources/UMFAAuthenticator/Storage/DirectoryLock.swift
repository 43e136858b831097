import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a directory, so read-modify-write sequences on the
/// files inside (attempt counter, sign counters, the SDK's enrollment list) are not lost when
/// threads or processes run them at once. It creates no file; closing releases it, also when a
/// process dies holding it.
public enum DirectoryLock {
    /// Runs `body` holding the lock on `directory`; others wait until it returns.
    /// - Throws: `body`'s error, or `unavailable()` (without running `body`) when the lock
    ///   cannot be taken.
    public static func withLock<Value, Failure: Error>(
        on directory: URL, unavailable: () -> Failure, _ body: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unavailable() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw unavailable() }
        }
        return try body()
    }
}
