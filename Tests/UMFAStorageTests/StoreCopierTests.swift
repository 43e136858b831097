import Foundation
import Testing

@testable import UMFAStorage

@Suite("Storage: copying an installation")
struct StoreCopierTests {
    @Test("the copier knows every column of every table the schema has, but the transient ones")
    func coversSchema() async throws {
        try await StoreLocation.withStore(.sqlite) { store in
            let executor = try #require(store as? SQLStore).executor
            let tables = try await executor.rows(
                StoreQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            ).map { try $0.text("name") }
            var schema: [String: Set<String>] = [:]
            for table in tables where !StoreCopier.transientTables.contains(table) {
                schema[table] = Set(
                    try await executor.rows(StoreQuery("PRAGMA table_info(\(table))")).map { try $0.text("name") })
            }
            let copied = Dictionary(uniqueKeysWithValues: StoreCopier.tables.map { ($0.name, Set($0.columns)) })
            #expect(copied == schema)
            // Integer columns are copied as integers: PostgreSQL refuses text for a BIGINT.
            var integers: Set<String> = []
            for table in schema.keys {
                for column in try await executor.rows(StoreQuery("PRAGMA table_info(\(table))")) {
                    let type = try column.text("type")
                    if type == "BIGINT" || type == "INTEGER" { integers.insert(try column.text("name")) }
                }
            }
            #expect(integers == StoreCopier.integerColumns)
        }
    }

    @Test("a challenge in flight keeps what it was issued with (allowCredentials, grant, token hash)")
    func challengeFieldsCopied() async throws {
        try await StoreLocation.withStore(.sqlite) { source in
            try await StoreLocation.withStore(.sqlite) { target in
                let app = try await Records.seed(source)
                var challenge = Records.challenge(app.id, ceremony: .registration)
                challenge.allowCredentials = [Records.bytes(16), Records.bytes(32)]
                challenge.grant = .enrollmentToken
                challenge.enrollmentTokenHash = Records.bytes(32)
                try await source.insertChallenge(challenge)
                _ = try await StoreCopier.copy(from: source, to: target)
                let copied = try await target.consumeChallenge(
                    challenge.challenge, applicationID: app.id, ceremony: .registration)
                #expect(copied == challenge)
            }
        }
    }
}
