import Foundation
import Logging
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
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            """
            sqlite3, sys, time = (__import__(name) for name in ("sqlite3", "sys", "time"))
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            time.sleep(1.5)
            c.execute("COMMIT")
            """, file.path,
        ]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        // Wait until the lock is held.
        let line = output.fileHandleForReading.availableData
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("locked"))
        let started = ContinuousClock.now
        // A read is answered while the other process writes (WAL mode).
        #expect(try await store.application(id: app.id) == app)
        // The write finds the lock taken: it must wait (not fail busy) and then be stored.
        let challenge = Records.challenge(app.id)
        try await store.insertChallenge(challenge)
        let waited = ContinuousClock.now - started
        holder.waitUntilExit()
        #expect(holder.terminationStatus == 0)
        #expect(waited > .milliseconds(800), "the write did not wait for the other process's lock: \(waited)")
        let consumed = try await store.consumeChallenge(
            challenge.challenge, applicationID: app.id, ceremony: challenge.ceremony)
        #expect(consumed?.challenge == challenge.challenge)
        try await store.close()
    }
}
