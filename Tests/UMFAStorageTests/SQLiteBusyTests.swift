import Foundation
import Logging
import NIOPosix
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// Another process (a backup, an operator's `sqlite3` shell) may hold the database's write lock:
/// a statement then waits under the busy timeout on the connection's thread instead of failing,
/// and reads go on meanwhile (WAL mode).
@Suite("Storage: SQLite statements while another process holds the lock")
struct SQLiteBusyTests {
    @Test("a write waits for another process's write transaction, then lands; a read is answered meanwhile")
    func writeWaitsForAnotherProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("umfa.sqlite")
        let store = try await SQLiteStore.open(path: file.path, logger: Logger(label: "t"))
        let app = try await Records.seed(store)
        // A second process (Python's sqlite3 on the same file) takes the write lock until released.
        let holder = try await LockHolder.start(file: file)
        // A read is answered while the other process writes (WAL mode).
        #expect(try await store.application(id: app.id) == app)
        // The write finds the lock taken: it must wait (not fail busy) and then be stored.
        let challenge = Records.challenge(app.id)
        let ended = Flag()
        let write = Task {
            defer { ended.raise() }
            try await store.insertChallenge(challenge)
        }
        try await Task.sleep(for: .milliseconds(300))
        // Still waiting: a write that failed busy, or ran beside the lock, would have ended.
        #expect(!ended.isRaised, "the write did not wait for the other process's lock")
        await holder.release()
        try await write.value
        let consumed = try await store.consumeChallenge(
            challenge.challenge, applicationID: app.id, ceremony: challenge.ceremony)
        #expect(consumed?.challenge == challenge.challenge)
        try await store.close()
    }

    @Test(
        "on an event loop a statement runs on the calling thread, up to the streak limit; another process's lock sends a write to the connection's thread, unchanged"
    )
    func statementsOnAnEventLoop() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "umfa-loop-\(UUID().uuidString).sqlite")
        let executor = try await SQLiteExecutor.open(path: file.path, logger: Logger(label: "t"))
        _ = try await executor.rows(StoreQuery("CREATE TABLE e (id BIGINT PRIMARY KEY)"))
        let insert: @Sendable (Int) -> StoreQuery = { id in
            StoreQuery("INSERT INTO e (id) VALUES (?)", [.integer(Int64(id))])
        }
        let count = StoreQuery("SELECT COUNT(*) AS n FROM e")
        // Off an event loop (here, Swift's cooperative pool): always the connection's thread.
        #expect(try executor.rowsOnThisThread(insert(-1)) == nil)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let limit = SQLiteExecutor.inlineStreakLimit
        let ran = try await loop.submit {
            try (0...limit).map { try executor.rowsOnThisThread(insert($0)) != nil }
        }.get()
        #expect(ran == Array(repeating: true, count: limit) + [false], "the streak limit sends the next one away")
        #expect(try await executor.rows(count).first?.optionalInteger("n") == Int64(limit))

        // Another process takes the write lock: a write on the loop is not run (and not waited
        // for); a read is answered; the write, sent to the connection's thread, lands later.
        let holder = try await LockHolder.start(file: file)
        let (wrote, counted) = try await loop.submit {
            (
                try executor.rowsOnThisThread(insert(100)) != nil,
                try executor.rowsOnThisThread(count)?.first?.optionalInteger("n")
            )
        }.get()
        #expect(!wrote, "a write ran under another process's lock")
        #expect(counted == Int64(limit))
        let write = Task { try await executor.rows(insert(100)).count }
        await holder.release()
        _ = try await write.value
        #expect(try await executor.rows(count).first?.optionalInteger("n") == Int64(limit) + 1)
        try await executor.close()
    }
}

/// A second process (Python's `sqlite3`) holding a database's write lock (`BEGIN IMMEDIATE`)
/// until the test releases it. It talks through files in a folder of its own and is waited
/// for by polling, so no thread of Swift's cooperative pool ever blocks on it: a test blocking
/// both of a two-core machine's threads would stall every other test of the suite.
private struct LockHolder {
    let folder: URL

    /// Returns once the lock is held.
    static func start(file: URL) async throws -> LockHolder {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-holder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("hold.py")
        try Data(
            """
            import os, sqlite3, sys, time
            database, folder = sys.argv[1], sys.argv[2]
            connection = sqlite3.connect(database, isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            open(os.path.join(folder, "locked"), "w").close()
            deadline = time.monotonic() + 300
            while not os.path.exists(os.path.join(folder, "release")) and time.monotonic() < deadline:
                time.sleep(0.01)
            connection.execute("COMMIT")
            connection.close()
            open(os.path.join(folder, "done"), "w").close()

            """.utf8
        ).write(to: script)
        try await Shell.run(
            "python3 '\(script.path)' '\(file.path)' '\(folder.path)' > '\(folder.path)/log' 2>&1 &")
        let holder = LockHolder(folder: folder)
        guard try await holder.appears("locked") else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            throw StoreError(.unavailable, "the lock holder did not take the lock within 60 s: \(log)")
        }
        return holder
    }

    /// Lets the lock go and waits until the other process has committed.
    func release() async {
        #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent("release").path, contents: nil))
        let committed = (try? await appears("done")) ?? false
        #expect(committed, "the lock holder did not commit within 60 s")
    }

    /// Whether the file `name` appears in the folder within 60 s.
    private func appears(_ name: String) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        let path = folder.appendingPathComponent(name).path
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
