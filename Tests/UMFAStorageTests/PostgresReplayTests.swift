import Foundation
import PostgresNIO
import Testing

@testable import UMFAStorage

/// A statement that may have reached PostgreSQL is never sent again unless it only reads
/// (docs/operators/postgresql.md): a write whose connection is lost may have run, so running it again could
/// apply it twice; the caller gets ``StoreError/Code/unavailable`` and decides.
@Suite("Storage: PostgreSQL never replays a write")
struct PostgresReplayTests {
    @Test("a write whose backend is ended while it runs fails and is not run again; a read is run again")
    func lostConnectionMidStatement() async throws {
        try await StoreLocation.withStore(.postgres) { store in
            _ = try await store.rawRows("CREATE TABLE replay_probe (n SERIAL PRIMARY KEY, note TEXT NOT NULL)")

            // A write that runs for a minute, so its backend is ended while it runs however long
            // the machine takes to find it (with 4 s, under stress-ng the insert had committed
            // before the backend was ended, and the count said 1).
            let write = Task {
                try await store.rawRows("INSERT INTO replay_probe (note) SELECT 'once' FROM pg_sleep(60) RETURNING n")
                    .count
            }
            try await Self.terminateBackend(running: "INSERT INTO replay_probe")
            // Sent again, the insert would succeed on a fresh connection and leave a row.
            let error = await #expect(throws: StoreError.self) { _ = try await write.value }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            let count = try await store.rawRows("SELECT count(*)::BIGINT AS rows FROM replay_probe")
            #expect(count.first?.optionalInteger("rows") == 0, "the write ran again after its connection was lost")

            // A read cut the same way changes nothing when run again, so it is, on another connection.
            let read = Task {
                try await store.rawRows("SELECT 7::BIGINT AS seven FROM pg_sleep(4)").first?.optionalInteger("seven")
            }
            try await Self.terminateBackend(running: "SELECT 7::BIGINT AS seven")
            #expect(try await read.value == 7)
        }
    }

    /// Waits until a backend runs a statement starting with `prefix`, then ends that backend
    /// (`pg_terminate_backend`, as a database restart or a network cut would end it).
    static func terminateBackend(running prefix: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        let find = """
            SELECT pid FROM pg_stat_activity
            WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '\(prefix)%'
            """
        while ContinuousClock.now < deadline {
            if let pid = try await TestDatabase.rows(find).first?[0].decode(Int32.self) {
                try await TestDatabase.execute("SELECT pg_terminate_backend(\(pid))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FixtureFailure("no backend ran \(prefix) within 30 s")
    }
}
