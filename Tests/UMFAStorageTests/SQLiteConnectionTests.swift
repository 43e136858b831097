import Foundation
import Logging
import Testing

@testable import UMFAStorage

@Suite("Storage: SQLite connection and its kept statements")
struct SQLiteConnectionTests {
    private func open() async throws -> SQLiteExecutor {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "umfa-conn-\(UUID().uuidString).sqlite")
        return try await SQLiteExecutor.open(path: file.path, logger: Logger(label: "t"))
    }

    @Test("a kept SELECT * sees a column added after it was first run")
    func schemaChangeRefreshesKeptStatements() async throws {
        let executor = try await open()
        _ = try await executor.rows(StoreQuery("CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL)"))
        _ = try await executor.rows(StoreQuery("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(1), .text("a")]))
        let select = StoreQuery("SELECT * FROM t WHERE id = ?", [.integer(1)])
        #expect(try await executor.rows(select).first?.optionalText("extra") == nil)
        _ = try await executor.rows(StoreQuery("ALTER TABLE t ADD COLUMN extra TEXT NOT NULL DEFAULT 'x'"))
        let after = try await executor.rows(select).first
        try await executor.close()
        #expect(after?.optionalText("name") == "a")
        #expect(after?.optionalText("extra") == "x")
    }

    @Test("the same statement with new values, many distinct statements, and text with NUL and non-ASCII bytes")
    func reuseAndValues() async throws {
        let executor = try await open()
        _ = try await executor.rows(StoreQuery("CREATE TABLE v (k TEXT PRIMARY KEY, n BIGINT, t TEXT)"))
        let texts = ["plain", "naïve ✓", "nul\u{0}inside", ""]
        for (index, text) in texts.enumerated() {
            _ = try await executor.rows(
                StoreQuery(
                    "INSERT INTO v (k, n, t) VALUES (?, ?, ?)",
                    [.text("k\(index)"), .integer(Int64(index) - 2), .text(text)]))
        }
        _ = try await executor.rows(
            StoreQuery("INSERT INTO v (k, n, t) VALUES (?, ?, ?)", [.text("null"), .null, .null]))
        for (index, text) in texts.enumerated() {
            let row = try await executor.rows(StoreQuery("SELECT * FROM v WHERE k = ?", [.text("k\(index)")])).first
            #expect(row?.optionalText("t") == text)
            #expect(row?.optionalInteger("n") == Int64(index) - 2)
        }
        let nulls = try await executor.rows(StoreQuery("SELECT * FROM v WHERE k = ?", [.text("null")])).first
        #expect(nulls?.optionalText("t") == nil && nulls?.optionalInteger("n") == nil)
        // More distinct statement texts than are kept: each still answers correctly.
        for limit in 1...300 {
            let rows = try await executor.rows(StoreQuery("SELECT k FROM v ORDER BY k LIMIT \(limit)"))
            #expect(rows.count == min(limit, texts.count + 1))
        }
        try await executor.close()
    }

    @Test("a duplicate key is a conflict, a syntax error is unavailable, and the statement after either still runs")
    func errors() async throws {
        let executor = try await open()
        _ = try await executor.rows(StoreQuery("CREATE TABLE u (k TEXT PRIMARY KEY)"))
        let insert = StoreQuery("INSERT INTO u (k) VALUES (?)", [.text("one")])
        _ = try await executor.rows(insert)
        let duplicate = await #expect(throws: StoreError.self) { try await executor.rows(insert) }
        #expect(duplicate?.code == .conflict)
        let syntax = await #expect(throws: StoreError.self) { try await executor.rows(StoreQuery("SELEC nothing")) }
        #expect(syntax?.code == .unavailable)
        #expect(try await executor.rows(StoreQuery("SELECT COUNT(*) AS n FROM u")).first?.optionalInteger("n") == 1)
        try await executor.close()
        let closed = await #expect(throws: StoreError.self) { try await executor.rows(StoreQuery("SELECT 1")) }
        #expect(closed?.code == .unavailable)
    }

    @Test(
        "UMFA's WAL hook still checkpoints, off the committing caller: the WAL stays near the threshold, not the data's size"
    )
    func checkpointsKeepTheWALBounded() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-wal-\(UUID().uuidString).sqlite")
        let executor = try await SQLiteExecutor.open(path: file.path, logger: Logger(label: "t"))
        _ = try await executor.rows(StoreQuery("CREATE TABLE w (id BIGINT PRIMARY KEY, body TEXT NOT NULL)"))
        // About 16 MB in 4,000 commits of 4 kB: four times SQLite's 1,000-page threshold.
        let body = String(repeating: "x", count: 4000)
        var largestWAL = 0
        for id in 0..<4000 {
            _ = try await executor.rows(
                StoreQuery("INSERT INTO w (id, body) VALUES (?, ?)", [.integer(Int64(id)), .text(body)]))
            if id % 100 == 0 {
                // The checkpoint runs on the connection's thread: give it its turn.
                try await Task.sleep(for: .milliseconds(5))
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int) ?? 0
                largestWAL = max(largestWAL, size)
            }
        }
        let count = try await executor.rows(StoreQuery("SELECT COUNT(*) AS n FROM w")).first?.optionalInteger("n")
        try await executor.close()
        #expect(count == 4000)
        #expect(largestWAL > 0)
        #expect(largestWAL < 10_000_000, "the WAL grew to \(largestWAL) bytes: no checkpoint ran")
    }
}
