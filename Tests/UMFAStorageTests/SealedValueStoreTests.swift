import Foundation
import Testing

@testable import UMFAStorage

@Suite("Storage: sealed values, for master-key rotation")
struct SealedValueStoreTests {
    @Test("every sealed_* column of the schema is one the rotation re-seals, and each listed column exists")
    func everySealedColumnIsListed() async throws {
        let schema = try await SchemaCatalog.tables()
        let sealedInSchema = Set(
            schema.flatMap { table in table.columns.filter { $0.hasPrefix("sealed_") }.map { "\(table.name).\($0)" } })
        #expect(sealedInSchema == Set(SealedColumn.allCases.map(\.rawValue)))
        for column in SealedColumn.allCases {
            let table = try #require(schema.first { $0.name == column.table })
            #expect(table.columns.contains(column.keyColumn), "\(column.rawValue) is keyed by \(column.keyColumn)")
        }
    }

    @Test(
        "values are read in key order, page by page; a replacement happens only over the value read",
        arguments: Engine.allCases)
    func pagesAndCompareAndSet(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let kids = (0..<5).map { "kid-\($0)" }
            for (index, kid) in kids.enumerated() {
                let key = Records.signingKey(kid, createdAt: Records.time(Double(index)))
                try await store.insertSigningKey(key, retiringOthersAt: Records.time(Double(index)))
            }
            let first = try await store.sealedValues(in: .signingKey, after: nil, limit: 2)
            let second = try await store.sealedValues(in: .signingKey, after: first.last?.key, limit: 2)
            let third = try await store.sealedValues(in: .signingKey, after: second.last?.key, limit: 2)
            #expect((first + second + third).map(\.key) == kids)
            #expect(third.count == 1)

            let value = first[0]
            let stale = Records.bytes(40)
            #expect(
                try await store.replaceSealedValue(in: .signingKey, key: value.key, old: stale, new: [1, 2, 3]) == false
            )
            #expect(try await store.sealedValues(in: .signingKey, after: nil, limit: 1) == [value], "nothing changed")
            #expect(
                try await store.replaceSealedValue(in: .signingKey, key: value.key, old: value.sealed, new: [1, 2, 3]))
            let replaced = try await store.signingKeys().first { $0.kid == value.key }
            #expect(replaced?.sealedPrivateKey == [1, 2, 3])
            #expect(
                try await store.replaceSealedValue(in: .signingKey, key: "no-such-kid", old: [1], new: [2]) == false)
            // Rows without a value are not listed (an application without a webhook).
            _ = try await Records.seed(store)
            #expect(try await store.sealedValues(in: .webhookSecret, after: nil, limit: 10).isEmpty)
        }
    }
}
