import Foundation
import Logging
import NIOPosix
import Testing

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
        // A second process (Python's sqlite3 on the same file) takes the write lock for 1.5 s.
        let holder = try LockHolder(file: file, seconds: 1.5)
        let started = ContinuousClock.now
        // A read is answered while the other process writes (WAL mode).
        #expect(try await store.application(id: app.id) == app)
        // The write finds the lock taken: it must wait (not fail busy) and then be stored.
        let challenge = Records.challenge(app.id)
        try await store.insertChallenge(challenge)
        let waited = ContinuousClock.now - started
        #expect(holder.wait() == 0)
        #expect(waited > .milliseconds(800), "the write did not wait for the other process's lock: \(waited)")
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
        let insert = { (id: Int) in StoreQuery("INSERT INTO e (id) VALUES (?)", [.integer(Int64(id))]) }
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
        let holder = try LockHolder(file: file, seconds: 1.0)
        let (wrote, counted) = try await loop.submit {
            (
                try executor.rowsOnThisThread(insert(100)) != nil,
                try executor.rowsOnThisThread(count)?.first?.optionalInteger("n")
            )
        }.get()
        #expect(!wrote, "a write ran under another process's lock")
        #expect(counted == Int64(limit))
        _ = try await executor.rows(insert(100))
        #expect(holder.wait() == 0)
        #expect(try await executor.rows(count).first?.optionalInteger("n") == Int64(limit) + 1)
        try await executor.close()
    }
}

/// A second process (Python's `sqlite3`) holding a database's write lock (`BEGIN IMMEDIATE`).
private struct LockHolder {
    let process = Process()

    /// Returns once the lock is held; the process lets it go after `seconds`.
    init(file: URL, seconds: Double) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            sqlite3, sys, time = (__import__(name) for name in ("sqlite3", "sys", "time"))
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            time.sleep(float(sys.argv[2]))
            c.execute("COMMIT")
            """, file.path, String(seconds),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("locked") else {
            throw StoreError(.unavailable, "the lock holder did not start")
        }
    }

    /// Waits for the process to end; its exit status.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
