import Foundation

/// One column of the table a record is stored in, declared once: its SQL type and default,
/// the schema version that added it, how a record writes it and how a row's value is read
/// back into a record. A table's statements, its row decoding and the migrations of its later
/// columns all follow from its list of these (docs/development.md, "Configured objects,
/// declared once").
struct StoredColumn<Record>: Sendable {
    /// A column's SQL type, spelled as SQLite and PostgreSQL both accept it.
    enum SQLType: String, Sendable {
        /// Text: ids, settings, JSON lists, base64url bytes.
        case text = "TEXT"
        /// A 64-bit integer: seconds, milliseconds since 1970.
        case bigint = "BIGINT"
        /// A flag stored as 0 or 1, as the earlier migrations store them.
        case boolean = "INTEGER"
    }

    /// When a statement writes the column.
    enum Role: Sendable {
        /// The primary key: inserted, and what an update finds the row by.
        case key
        /// Written when the row is inserted, never changed (a creation time).
        case fixed
        /// Written on insert and on every update.
        case updated
    }

    /// The column's name.
    let name: String
    /// Its SQL type.
    let type: SQLType
    /// Its default: `.null` for a nullable column, `nil` for a `NOT NULL` one without a
    /// default (only the table's first columns).
    let defaultValue: StoreQuery.Value?
    /// The schema version whose migration adds the column; `nil` for the columns the written
    /// migrations made.
    let added: Int?
    /// When statements write it.
    let role: Role
    /// The value a record stores in it.
    let write: @Sendable (Record) -> StoreQuery.Value
    /// Reads its value from a row into a record; a value that cannot be read throws
    /// ``StoreError/Code/corrupt``.
    let read: @Sendable (inout Record, StoredField) throws -> Void

    /// A column the written migrations made.
    init(
        _ name: String, _ type: SQLType, default defaultValue: StoreQuery.Value? = nil, role: Role = .updated,
        write: @escaping @Sendable (Record) -> StoreQuery.Value,
        read: @escaping @Sendable (inout Record, StoredField) throws -> Void
    ) {
        self.init(name, type, defaultValue, added: nil, role: role, write: write, read: read)
    }

    /// A column added by schema version `added`: the migration of that version adds it with
    /// `defaultValue` (`.null` for a nullable column), which existing rows then hold.
    init(
        _ name: String, _ type: SQLType, default defaultValue: StoreQuery.Value, added: Int,
        write: @escaping @Sendable (Record) -> StoreQuery.Value,
        read: @escaping @Sendable (inout Record, StoredField) throws -> Void
    ) {
        self.init(name, type, defaultValue, added: added, role: .updated, write: write, read: read)
    }

    private init(
        _ name: String, _ type: SQLType, _ defaultValue: StoreQuery.Value?, added: Int?, role: Role,
        write: @escaping @Sendable (Record) -> StoreQuery.Value,
        read: @escaping @Sendable (inout Record, StoredField) throws -> Void
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.added = added
        self.role = role
        self.write = write
        self.read = read
    }

    /// The column as `ALTER TABLE … ADD COLUMN` declares it: its type, then `NOT NULL` and its
    /// default unless the column is nullable.
    var definition: String {
        switch defaultValue {
        case .null: "\(name) \(type.rawValue)"
        case nil: "\(name) \(type.rawValue) NOT NULL"
        case .text(let text):
            "\(name) \(type.rawValue) NOT NULL DEFAULT '\(text.replacingOccurrences(of: "'", with: "''"))'"
        case .integer(let integer): "\(name) \(type.rawValue) NOT NULL DEFAULT \(integer)"
        }
    }
}

/// One column of a row, read by the name its ``StoredColumn`` declares.
struct StoredField {
    /// The row.
    let row: any StoredRow
    /// The column's name.
    let column: String

    func optionalText() -> String? { row.optionalText(column) }
    func optionalInteger() -> Int64? { row.optionalInteger(column) }
    func text() throws -> String { try row.text(column) }
    func integer() throws -> Int64 { try row.integer(column) }
    func uuid() throws -> UUID { try row.uuid(column) }
    func date() throws -> Date { try row.date(column) }
    /// A JSON list of strings (``StoredValue/list(_:)``).
    func list() throws -> [String] { try StoredValue.list(try text()) }
    /// A setting stored as its raw value; any other text is a damaged row.
    func setting<Setting: RawRepresentable<String>>() throws -> Setting { try row.setting(column) }
}

/// A table and the columns a record is stored in, with the statements that follow from them,
/// built once.
struct StoredTable<Record>: Sendable {
    /// The table's name.
    let name: String
    /// Its columns, in the order statements list them.
    let columns: [StoredColumn<Record>]
    /// `INSERT` of every column, its values in ``columns``' order (``insertValues(_:)``).
    let insertSQL: String
    /// `UPDATE` of every updated column, found by the key (``updateValues(_:)``).
    let updateSQL: String
    private let keys: [StoredColumn<Record>]
    private let updated: [StoredColumn<Record>]

    /// The table `name` holding `columns`.
    init(_ name: String, columns: [StoredColumn<Record>]) {
        self.name = name
        self.columns = columns
        keys = columns.filter { $0.role == .key }
        updated = columns.filter { $0.role == .updated }
        insertSQL =
            "INSERT INTO \(name) (\(columns.map(\.name).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        updateSQL =
            "UPDATE \(name) SET \(updated.map { "\($0.name) = ?" }.joined(separator: ", ")) WHERE "
            + keys.map { "\($0.name) = ?" }.joined(separator: " AND ")
    }

    /// The values of ``insertSQL``.
    func insertValues(_ record: Record) -> [StoreQuery.Value] {
        columns.map { $0.write(record) }
    }

    /// The values of ``updateSQL``: the updated columns, then the key.
    func updateValues(_ record: Record) -> [StoreQuery.Value] {
        (updated + keys).map { $0.write(record) }
    }

    /// Reads every column of `row` into `record`.
    func read(_ row: any StoredRow, into record: inout Record) throws {
        for column in columns { try column.read(&record, StoredField(row: row, column: column.name)) }
    }

    /// The `ALTER TABLE` statements of the columns each schema version adds, by version.
    var addedColumns: [Int: [String]] {
        columns.reduce(into: [:]) { statements, column in
            guard let version = column.added else { return }
            statements[version, default: []].append("ALTER TABLE \(name) ADD COLUMN \(column.definition)")
        }
    }
}
