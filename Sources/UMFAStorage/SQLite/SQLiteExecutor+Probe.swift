import Foundation

/// The database file an executor opened: its path and which file it was (device and inode), so
/// the readiness probe notices a file moved, removed or replaced under a running server.
struct SQLiteFile: Sendable {
    /// The path as given.
    let path: String
    /// The file's device and inode when it was opened; `nil` for an in-memory database.
    let identity: Identity?

    struct Identity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Below this much free space on the file's file system, the database counts as unwritable:
    /// a write that grows the file or its WAL would fail.
    static let minimumFreeBytes: UInt64 = 1 << 20

    init(path: String) {
        self.path = path
        identity = Self.identity(of: path)
    }

    static func identity(of path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Why the file cannot take writes now, or `nil`: it is no longer at its path, or its file
    /// system is read-only or (nearly) full.
    func problem() -> String? {
        guard let identity else { return nil }
        guard Self.identity(of: path) == identity else {
            return "SQLite: the database file was moved, removed or replaced"
        }
        var space = statvfs()
        guard statvfs(path, &space) == 0 else { return "SQLite: the database file cannot be examined" }
        if space.f_flag & UInt(ST_RDONLY) != 0 { return "SQLite: the database's file system is read-only" }
        if UInt64(space.f_bavail) * UInt64(space.f_frsize) < Self.minimumFreeBytes {
            return "SQLite: no space is left on the database's file system"
        }
        return nil
    }
}

extension SQLiteExecutor {
    /// Proves the database takes writes now: the file is where it was opened, its file system
    /// is writable with space left, and the write lock is free (`BEGIN IMMEDIATE` without
    /// waiting, then rolled back: nothing is written). It runs on the connection's thread, so a
    /// file system that hangs holds that thread, never one of the server's event loops.
    func probe() async throws {
        let file = file
        try await onConnectionThread { connection in
            if let problem = file.problem() { throw StoreError(.unavailable, problem) }
            guard case .ran = try connection.runWithoutWaiting(StoreQuery("BEGIN IMMEDIATE"), writes: true) else {
                throw StoreError(.unavailable, "SQLite: another process holds the database's write lock")
            }
            _ = try connection.runWaiting(StoreQuery("ROLLBACK"))
        }
    }

    /// Checkpoints the WAL into the database file and syncs it: with `synchronous=normal`, the
    /// commits still only in the WAL could be lost to a power cut.
    func makeCommitsDurable() async throws {
        _ = try await onConnectionThread { connection in
            try connection.runWaiting(StoreQuery("PRAGMA wal_checkpoint(FULL)"))
        }
    }
}
