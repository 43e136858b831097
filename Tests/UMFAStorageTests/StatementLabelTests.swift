import Testing

@testable import UMFAStorage

@Suite("Storage: statement labels for metrics")
struct StatementLabelTests {
    @Test("the verb and the first table, whatever the layout; nothing else of the statement")
    func labels() {
        #expect(StatementLabel.make("SELECT * FROM credentials WHERE application_id = ?") == "SELECT credentials")
        #expect(StatementLabel.make("INSERT INTO audit_events (id) VALUES (?)") == "INSERT audit_events")
        #expect(StatementLabel.make("UPDATE oob_transactions SET status = ?") == "UPDATE oob_transactions")
        #expect(StatementLabel.make("DELETE FROM challenges WHERE x = ? RETURNING *") == "DELETE challenges")
        #expect(StatementLabel.make("SELECT COUNT(*) FROM users") == "SELECT users")
        #expect(
            StatementLabel.make("\n            SELECT *\n            FROM oob_transactions\n")
                == "SELECT oob_transactions")
        #expect(StatementLabel.make("WITH x AS (SELECT 1) SELECT * FROM x") == "with")
        #expect(StatementLabel.make("SELECT 'secret' FROM") == "SELECT ?")
    }
}
