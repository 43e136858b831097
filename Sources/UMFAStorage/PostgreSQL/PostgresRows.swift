import Foundation
import PostgresNIO

/// Statements and rows: the shared `?` statements in PostgreSQL's `$n` form, and rows read by
/// column name.
extension PostgresExecutor {
    /// The shared statement with `$n` placeholders and typed bindings.
    static func postgresQuery(_ query: StoreQuery) -> PostgresQuery {
        var sql = ""
        var index = 0
        for character in query.sql {
            if character == "?" {
                index += 1
                sql += "$\(index)"
            } else {
                sql.append(character)
            }
        }
        var bindings = PostgresBindings(capacity: query.values.count)
        for value in query.values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let integer): bindings.append(integer)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// A PostgreSQL row read by column name.
struct PostgresStoredRow: StoredRow, Sendable {
    let row: PostgresRandomAccessRow

    func optionalText(_ column: String) -> String? {
        guard row.contains(column) else { return nil }
        return try? row[column].decode(String?.self)
    }

    func optionalInteger(_ column: String) -> Int64? {
        guard row.contains(column) else { return nil }
        if let value = try? row[column].decode(Int64?.self) { return value }
        return (try? row[column].decode(Int32?.self)).flatMap { $0.map(Int64.init) }
    }
}
