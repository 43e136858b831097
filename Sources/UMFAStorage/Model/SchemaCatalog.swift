import Foundation
import Logging

/// The tables and columns ``Schema`` makes, read back from a scratch SQLite database migrated
/// with it: what the copier moves follows from the schema alone.
enum SchemaCatalog {
    /// One table as the schema leaves it.
    struct Table: Sendable, Equatable {
        /// The table's name.
        let name: String
        /// Its columns, in declaration order.
        let columns: [String]
        /// The columns declared `INTEGER` or `BIGINT` (copied as integers: PostgreSQL refuses
        /// text for a BIGINT); every other column is text.
        let integerColumns: Set<String>
        /// The tables its foreign keys reference.
        let references: Set<String>
    }

    /// Every table of the schema, each after the tables it references.
    static func tables() async throws -> [Table] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-schema-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executor = try await SQLiteExecutor.open(
            path: directory.appendingPathComponent("schema.sqlite").path, logger: Logger(label: "umfa.schema"))
        do {
            try await executor.migrate(Schema.migrations)
            let tables = try await read(executor)
            try await executor.close()
            return inReferenceOrder(tables)
        } catch {
            try? await executor.close()
            throw error
        }
    }

    private static func read(_ executor: SQLiteExecutor) async throws -> [Table] {
        let names = try await executor.rows(
            StoreQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        ).map { try $0.text("name") }
        var tables: [Table] = []
        for name in names {
            let columns = try await executor.rows(StoreQuery("PRAGMA table_info(\(name))"))
            let references = try await executor.rows(StoreQuery("PRAGMA foreign_key_list(\(name))"))
            tables.append(
                Table(
                    name: name, columns: try columns.map { try $0.text("name") },
                    integerColumns: Set(
                        try columns.filter { ["INTEGER", "BIGINT"].contains(try $0.text("type")) }
                            .map { try $0.text("name") }),
                    references: Set(try references.map { try $0.text("table") }).subtracting([name])))
        }
        return tables
    }

    /// The tables ordered so that each comes after those it references (names break ties).
    private static func inReferenceOrder(_ tables: [Table]) -> [Table] {
        var ordered: [Table] = []
        var placed: Set<String> = []
        var waiting = tables
        while !waiting.isEmpty {
            let ready = waiting.filter { $0.references.isSubset(of: placed) }
            // A cycle cannot be ordered: keep the rest by name (the copy then fails loudly).
            let next = ready.isEmpty ? waiting : ready
            ordered += next
            placed.formUnion(next.map(\.name))
            waiting.removeAll { table in next.contains { $0.name == table.name } }
        }
        return ordered
    }
}
