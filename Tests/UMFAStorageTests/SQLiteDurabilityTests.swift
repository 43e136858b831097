import Foundation
import Logging
import Testing

@testable import UMFAStorage

@Suite("Storage: SQLite durability setting")
struct SQLiteDurabilityTests {
    private func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("umfa.sqlite")
    }

    @Test("the URL's synchronous parameter picks the durability; normal is the default")
    func parsing() throws {
        #expect(try SQLiteLocation("/d/u.sqlite") == SQLiteLocation("/d/u.sqlite?synchronous=normal"))
        let full = try SQLiteLocation("/d/u.sqlite?synchronous=full")
        #expect(full.file == "/d/u.sqlite" && full.durability == .full)
        #expect(try SQLiteLocation("/d/u.sqlite").durability == .normal)
    }

    @Test(
        "unknown or malformed parameters are refused with a message that names them",
        arguments: [
            "/d/u.sqlite?synchronous=off", "/d/u.sqlite?mode=ro", "/d/u.sqlite?synchronous", "?synchronous=full",
        ])
    func refused(text: String) {
        #expect(throws: StoreError.self) { try SQLiteLocation(text) }
    }

    @Test(
        "the connection runs with the chosen PRAGMA synchronous (1 = NORMAL, 2 = FULL)",
        arguments: [
            (SQLiteDurability.normal, Int64(1)), (.full, 2),
        ])
    func pragmaApplied(durability: SQLiteDurability, expected: Int64) async throws {
        let file = try temporaryFile()
        let executor = try await SQLiteExecutor.open(
            path: file.path, durability: durability, logger: Logger(label: "t"))
        let rows = try await executor.rows(StoreQuery("PRAGMA synchronous"))
        try await executor.close()
        #expect(rows.first?.optionalInteger("synchronous") == expected)
    }

    @Test("a store opened with ?synchronous=full writes the file named before the '?'")
    func storeOpensThePlainFile() async throws {
        let file = try temporaryFile()
        let store = try await SQLiteStore.open(path: file.path + "?synchronous=full", logger: Logger(label: "t"))
        let app = try await Records.seed(store)
        try await store.close()
        #expect(FileManager.default.fileExists(atPath: file.path))
        let reopened = try await SQLiteStore.open(path: file.path, logger: Logger(label: "t"))
        #expect(try await reopened.application(id: app.id) == app)
        try await reopened.close()
    }
}
