import Foundation
import Testing

@testable import UMFAStorage

@Suite("Storage: copying an installation")
struct StoreCopierTests {
    @Test(
        "the copier moves every column of every table a store has, but the transient ones, each table after those it references"
    )
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
            let copied = try await StoreCopier.tables()
            #expect(Dictionary(uniqueKeysWithValues: copied.map { ($0.name, Set($0.columns)) }) == schema)
            for (index, table) in copied.enumerated() {
                let earlier = Set(copied[..<index].map(\.name))
                let references = try await executor.rows(StoreQuery("PRAGMA foreign_key_list(\(table.name))"))
                    .map { try $0.text("table") }.filter { $0 != table.name }
                #expect(Set(references).isSubset(of: earlier), "\(table.name) before \(references)")
            }
            // Integer columns are copied as integers: PostgreSQL refuses text for a BIGINT.
            #expect(
                try #require(copied.first { $0.name == "oauth_clients" }).integerColumns == [
                    "created_at", "settings_version",
                ])
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
