import Testing

@testable import UMFAStorage

@Suite("Storage: statement labels for metrics")
struct StatementLabelTests {
    func label(_ sql: String) -> String { StoreStatement(sql: sql).label }

    @Test("the verb and the first table, whatever the layout; nothing else of the statement")
    func labels() {
        #expect(label("SELECT * FROM credentials WHERE application_id = ?") == "SELECT credentials")
        #expect(label("INSERT INTO audit_events (id) VALUES (?)") == "INSERT audit_events")
        #expect(label("UPDATE oob_transactions SET status = ?") == "UPDATE oob_transactions")
        #expect(label("DELETE FROM challenges WHERE x = ? RETURNING *") == "DELETE challenges")
        #expect(label("SELECT COUNT(*) FROM users") == "SELECT users")
        #expect(
            label("\n            SELECT *\n            FROM oob_transactions\n")
                == "SELECT oob_transactions")
        #expect(label("WITH x AS (SELECT 1) SELECT * FROM x") == "with")
        #expect(label("SELECT 'secret' FROM") == "SELECT ?")
    }

    @Test("observers get the verb and the table apart, the table only when it is a plain name")
    func parts() {
        let delete = StoreStatement(sql: "DELETE FROM api_keys WHERE id = ?")
        #expect(delete.verb == .delete && delete.table == "api_keys")
        let update = StoreStatement(sql: "update Users SET x = ?")
        #expect(update.verb == .update && update.table == "users" && update.label == "UPDATE users")
        let unreadable = StoreStatement(sql: "DELETE FROM \"quoted\" WHERE 1")
        #expect(unreadable.verb == .delete && unreadable.table == nil && unreadable.label == "DELETE ?")
        let other = StoreStatement(sql: "WITH x AS (SELECT 1) DELETE FROM users")
        #expect(other.verb == .other && other.table == nil && other.label == "WITH DELETE users")
        #expect(other.writes.map(\.label) == ["DELETE users"])
        let reads = StoreStatement(sql: "WITH x AS (SELECT 1) SELECT * FROM x")
        #expect(reads.label == "with" && reads.writes.isEmpty)
        let upsert = StoreStatement(
            sql: "WITH x AS (SELECT 1) INSERT INTO t (a) SELECT 1 ON CONFLICT (a) DO UPDATE SET a = 2")
        #expect(upsert.label == "WITH INSERT t", "an upsert's DO UPDATE is not another write")
    }
}
