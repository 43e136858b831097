import Foundation
import Testing
import UMFAStorage

@Suite("Storage: related origins and applications by RP ID")
struct RelatedOriginsStoreTests {
    @Test(
        "related origins round-trip and update; applications(rpID:) lists one RP ID's applications oldest first",
        arguments: Engine.allCases)
    func relatedOrigins(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            var newer = Records.application(name: "Newer", createdAt: Records.time(20))
            newer.relatedOrigins = ["https://shop.example.org"]
            let older = Records.application(name: "Older", createdAt: Records.time(10))
            var elsewhere = Records.application(name: "Elsewhere", createdAt: Records.time(5))
            elsewhere.rpID = "bank.example"
            elsewhere.relatedOrigins = ["https://bank.example.net"]
            for app in [newer, older, elsewhere] { try await store.insertApplication(app) }

            #expect(older.relatedOrigins.isEmpty)
            #expect(try await store.application(id: newer.id) == newer)
            #expect(try await store.applications(rpID: "example.com") == [older, newer])
            #expect(try await store.applications(rpID: "bank.example") == [elsewhere])
            #expect(try await store.applications(rpID: "unknown.example").isEmpty)

            var changed = older
            changed.relatedOrigins = ["https://www.example.co.uk", "https://example.de"]
            try await store.updateApplication(changed)
            #expect(try await store.application(id: older.id)?.relatedOrigins == changed.relatedOrigins)
            #expect(try await store.applications(rpID: "example.com") == [changed, newer])
        }
    }
}
