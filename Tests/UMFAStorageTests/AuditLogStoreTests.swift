import Foundation
import Testing
import UMFAEncoding
import UMFAStorage

@Suite("Storage: the audit log")
struct AuditLogStoreTests {
    static func event(
        _ id: String, at seconds: Double, application: UUID?, action: String = "authentication.succeeded",
        user: String? = "alice"
    ) -> AuditEventRecord {
        AuditEventRecord(
            id: id, occurredAt: Records.time(seconds), applicationID: application, action: action,
            actor: user.map { "user:\($0)" } ?? "admin", userID: user, credentialID: user == nil ? nil : "Y3JlZA",
            clientAddress: "192.0.2.7", traceID: "trace-\(id)",
            details: ["user_verified": .bool(true), "client_id": .string("shop")])
    }

    @Test(
        "events read back whole, oldest first, filtered, in pages that neither skip nor repeat",
        arguments: Engine.allCases)
    func filtersAndPages(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = try await Records.seed(store)
            // Inserted out of order; two share a millisecond and are ordered by id.
            let events = [
                Self.event("0003", at: 3, application: app.id, action: "credential.deleted"),
                Self.event("0001", at: 1, application: app.id),
                Self.event("0002b", at: 2, application: app.id, user: "bob"),
                Self.event("0002a", at: 2, application: other.id),
                Self.event("0004", at: 4, application: nil, action: "admin.signed_in", user: nil),
            ]
            for event in events { try await store.insertAuditEvent(event) }

            let all = try await store.auditEvents(AuditEventFilter(), after: nil, limit: 100)
            #expect(all.map(\.id) == ["0001", "0002a", "0002b", "0003", "0004"])
            #expect(all.first == events[1], "every field, details included, reads back as written")
            #expect(all.last?.applicationID == nil)

            var paged: [String] = []
            var cursor: AuditCursor?
            repeat {
                let page = try await store.auditEvents(AuditEventFilter(), after: cursor, limit: 2)
                paged += page.map(\.id)
                cursor = page.count == 2 ? AuditCursor(after: page[1]) : nil
            } while cursor != nil
            #expect(paged == all.map(\.id))

            let mine = try await store.auditEvents(AuditEventFilter(applicationID: app.id), after: nil, limit: 100)
            #expect(mine.map(\.id) == ["0001", "0002b", "0003"])
            let bob = try await store.auditEvents(
                AuditEventFilter(applicationID: app.id, userID: "bob"), after: nil, limit: 100)
            #expect(bob.map(\.id) == ["0002b"])
            let deleted = try await store.auditEvents(
                AuditEventFilter(action: "credential.deleted"), after: nil, limit: 100)
            #expect(deleted.map(\.id) == ["0003"])
            let window = try await store.auditEvents(
                AuditEventFilter(since: Records.time(2), until: Records.time(4)), after: nil, limit: 100)
            #expect(window.map(\.id) == ["0002a", "0002b", "0003"], "since is inclusive, until exclusive")
        }
    }

    @Test("retention removes what is older than the cut, and nothing else", arguments: Engine.allCases)
    func purge(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            for second in 1...5 {
                try await store.insertAuditEvent(Self.event("e\(second)", at: Double(second), application: app.id))
            }
            #expect(try await store.purgeAuditEvents(before: Records.time(3)) == 2)
            let left = try await store.auditEvents(AuditEventFilter(), after: nil, limit: 100)
            #expect(left.map(\.id) == ["e3", "e4", "e5"])
        }
    }
}
