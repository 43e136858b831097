import Foundation

/// Shell commands for the PostgreSQL fixtures of the test targets.
public enum Shell {
    /// A command that exited with a status other than 0, or a fixture that cannot run.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// A failure saying `description`.
        public init(_ description: String) { self.description = description }
    }

    /// Runs `command` with `/bin/sh -c` on a thread of its own (never one of the cooperative
    /// pool) and waits for it with `waitpid`: Foundation's `Process` sometimes never reports
    /// the exit of a child in the test process, leaving it a zombie and the test hanging.
    public static func run(_ command: String) async throws {
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread { continuation.resume(returning: spawnAndWait(["/bin/sh", "-c", command])) }
        }
        guard status == 0 else { throw Failure("`\(command)` exited with status \(status)") }
    }

    #if os(Linux)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which the Glibc module
        /// does not import: it is declared only under `_GNU_SOURCE`.
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        nonisolated(unsafe) private static let closeFrom: CloseFrom? = dlsym(
            UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
        ).map { unsafeBitCast($0, to: CloseFrom.self) }
    #endif

    /// The exit status of the program, or -1 when it could not run or was killed.
    private static func spawnAndWait(_ arguments: [String]) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The child gets standard input, output and error, nothing else. NIO accepts connections
        // without FD_CLOEXEC, so a child would otherwise keep a copy of every socket open in the
        // test process at that moment: a long-lived one (`openssl s_server`, a PostgreSQL
        // server) keeps a connection open after its server has closed it, and its client never
        // sees the close.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        #if os(Linux)
            guard let closeFrom = closeFrom, closeFrom(&actions, 3) == 0 else { return -1 }
        #endif
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }
}
