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
