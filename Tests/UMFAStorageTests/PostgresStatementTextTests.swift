import Foundation
import Testing

@testable import UMFAStorage

/// The shared statements' text as PostgreSQL gets it: `?` placeholders numbered, and which
/// statements only read (those may be sent again after a lost connection).
@Suite("Storage: PostgreSQL statement text")
struct PostgresStatementTextTests {
    @Test("each ? becomes $1, $2, … in turn, whatever text is around it")
    func placeholders() {
        #expect(PostgresExecutor.numberedPlaceholders("SELECT 1") == "SELECT 1")
        #expect(PostgresExecutor.numberedPlaceholders("") == "")
        #expect(
            PostgresExecutor.numberedPlaceholders("UPDATE t SET a = ?, b = ? WHERE c = ?")
                == "UPDATE t SET a = $1, b = $2 WHERE c = $3")
        #expect(PostgresExecutor.numberedPlaceholders("é?日本?") == "é$1日本$2")
        let many = Array(repeating: "?", count: 12).joined(separator: ",")
        #expect(PostgresExecutor.numberedPlaceholders(many) == (1...12).map { "$\($0)" }.joined(separator: ","))
        let query = PostgresExecutor.postgresQuery(
            StoreQuery("SELECT * FROM t WHERE a = ? AND b = ?", [.text("x"), .integer(2)]))
        #expect(query.sql == "SELECT * FROM t WHERE a = $1 AND b = $2")
        #expect(query.binds.count == 2)
    }

    @Test(
        "the sign-in's reading has a placeholder for each value and a join for each counter, kept texts and built ones alike"
    )
    func assertionReadingTexts() {
        for counters in 0...5 {
            let lookup = AssertionLookup(
                applicationID: UUID(), challenge: [1], ceremony: .authentication, credentialID: [2],
                abuseKeys: (0..<counters).map { AbuseCounterKey(counter: "c\($0)", key: "k\($0)") })
            let query = StoreQueries.assertionReading(lookup)
            #expect(query.sql.utf8.filter { $0 == UInt8(ascii: "?") }.count == query.values.count, "\(counters)")
            #expect(query.values.count == 6 + 2 * counters)
            #expect(query.sql.contains("LEFT JOIN abuse_counters b\(counters - 1) ") == (counters > 0))
            #expect(!query.sql.contains("abuse_counters b\(counters) "))
        }
    }

    @Test("the sign-in's options and its record have a placeholder for each value they bind")
    func signInStatementPlaceholders() {
        func marks(_ query: StoreQuery) -> Int { query.sql.utf8.filter { $0 == UInt8(ascii: "?") }.count }
        let application = UUID()
        let options = StoreQueries.issueSignInChallenge(
            SignInChallengeRequest(
                applicationID: application, userID: "mia", challenge: [1], ceremony: .authentication,
                expiresAt: Records.time(60), sampleSeed: [2]))
        #expect(marks(options) == options.values.count)
        let lookup = AssertionLookup(
            applicationID: application, challenge: [1], ceremony: .authentication, credentialID: [2], abuseKeys: [])
        let record = StoreQueries.recordAssertion(
            lookup, credential: Records.credential(application, "mia", id: [2]), expectedSignCount: 1,
            event: AuditEventRecord(
                id: "e", occurredAt: Records.time(0), applicationID: application, action: "authentication.succeeded",
                actor: "mia", clientAddress: "127.0.0.1", traceID: "t"))
        #expect(marks(record) == record.values.count)
    }

    @Test("a statement only reads when it starts with SELECT, in any case, after any blank space")
    func readOnly() {
        for sql in ["SELECT 1", "select * from t", "  \n\tSeLeCt x", "SELECT"] {
            #expect(PostgresExecutor.isReadOnly(StoreQuery(sql)), "\(sql)")
        }
        let writes = [
            "", "SELEC", "UPDATE t SET a = 1", "INSERT INTO t VALUES (1)", "DELETE FROM t RETURNING *",
            "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "(SELECT 1)", "SELEÇT 1",
        ]
        for sql in writes {
            #expect(!PostgresExecutor.isReadOnly(StoreQuery(sql)), "\(sql)")
        }
    }
}
