import CSQLite
import Synchronization

/// One SQLite connection through the C API, with its prepared statements kept for reuse.
///
/// Not thread-safe: ``SQLiteExecutor`` touches it under its lock only. Preparing a
/// statement (parsing the SQL) cost more than running it — about 5 % of a login's server CPU
/// through SQLiteNIO, which prepares every query anew and answers each row through an event
/// loop — so statements are prepared once and reset after each run.
final class SQLiteConnectionHandle: @unchecked Sendable {
    private var database: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]
    /// Statement texts beyond this many are not kept: a safety net, since the store's SQL is a
    /// small fixed set.
    private static let maximumKeptStatements = 256
    /// How long a statement run by the connection's thread waits for another process's lock.
    static let busyTimeoutMilliseconds: Int32 = 5000
    /// Whether statements now wait for another process's lock (``busyTimeoutMilliseconds``) or
    /// fail busy at once (``runWithoutWaiting(_:writes:)``).
    private var waitsWhenBusy = true
    /// Pages in the write-ahead log after the last commit (the WAL hook's count).
    private(set) var walPages: Int32 = 0
    /// WAL pages past which the executor checkpoints on its thread: SQLite's own
    /// auto-checkpoint threshold, whose work (an fsync) the hook below takes off the caller.
    static let checkpointPages: Int32 = 1000

    private final class PreparedStatement {
        let handle: OpaquePointer
        /// `CREATE`, `ALTER` or `DROP`: running it drops every kept statement.
        let changesSchema: Bool
        var columns: SQLiteColumns?

        init(handle: OpaquePointer, changesSchema: Bool) {
            self.handle = handle
            self.changesSchema = changesSchema
        }
    }

    /// `sqlite3_initialize` once per process before the first open (SQLiteNIO does the same:
    /// concurrent first opens raced on SQLite's global configuration).
    private static let initialized = Mutex(false)

    init(path: String) throws {
        Self.initialized.withLock { done in
            if !done { _ = sqlite3_initialize() }
            done = true
        }
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &database, flags, nil)
        guard status == SQLITE_OK else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(database)
            database = nil
            throw StoreError(.unavailable, "SQLite: cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(database, Self.busyTimeoutMilliseconds)
        // A WAL hook of our own replaces SQLite's auto-checkpoint, which would sync the files
        // inside whichever commit crosses the threshold, on whatever thread ran it.
        sqlite3_wal_hook(
            database,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteConnectionHandle>.fromOpaque(context).takeUnretainedValue().walPages = pages
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What ``runWithoutWaiting(_:writes:)`` did.
    enum Attempt {
        /// The statement ran; its rows.
        case ran([SQLiteStoredRow])
        /// The statement did not run and changed nothing: another process holds the lock, or it
        /// writes where writes were not allowed. The connection's thread runs it instead.
        case deferred
    }

    /// Runs `query` without waiting for another process's lock, and only if it is read-only
    /// or `writes` is true; otherwise, or when the database is busy, nothing happens.
    func runWithoutWaiting(_ query: StoreQuery, writes: Bool) throws -> Attempt {
        guard let database else { throw StoreError(.unavailable, "SQLite: the connection is closed") }
        if !writes, sqlite3_stmt_readonly(try prepared(query.sql, database: database).handle) == 0 {
            return .deferred
        }
        setWaitsWhenBusy(false, database: database)
        do {
            return .ran(try run(query))
        } catch is BusyBeforeFirstRow {
            return .deferred
        }
    }

    /// Runs `query`, waiting up to ``busyTimeoutMilliseconds`` for another process's lock.
    func runWaiting(_ query: StoreQuery) throws -> [SQLiteStoredRow] {
        guard let database else { throw StoreError(.unavailable, "SQLite: the connection is closed") }
        setWaitsWhenBusy(true, database: database)
        do {
            return try run(query)
        } catch is BusyBeforeFirstRow {
            throw SQLiteExecutor.busy
        }
    }

    /// Another process held a lock the statement needed before it changed anything.
    private struct BusyBeforeFirstRow: Error {}

    /// Marks the WAL checkpointed (after ``SQLiteExecutor`` ran one).
    func checkpointed() { walPages = 0 }

    private func setWaitsWhenBusy(_ waits: Bool, database: OpaquePointer) {
        guard waits != waitsWhenBusy else { return }
        sqlite3_busy_timeout(database, waits ? Self.busyTimeoutMilliseconds : 0)
        waitsWhenBusy = waits
    }

    /// Runs one statement to its end and returns its rows.
    private func run(_ query: StoreQuery) throws -> [SQLiteStoredRow] {
        guard let database else { throw StoreError(.unavailable, "SQLite: the connection is closed") }
        let statement = try prepared(query.sql, database: database)
        // Runs last, after the reset below.
        defer { if statement.changesSchema { finalizeStatements() } }
        defer {
            sqlite3_reset(statement.handle)
            sqlite3_clear_bindings(statement.handle)
        }
        try bind(query.values, to: statement.handle, database: database)
        var rows: [SQLiteStoredRow] = []
        while true {
            let status = sqlite3_step(statement.handle)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else {
                // Busy at the first step: the statement took no lock and changed nothing (a
                // RETURNING statement makes all its changes before its first row).
                if rows.isEmpty, [SQLITE_BUSY, SQLITE_LOCKED].contains(sqlite3_extended_errcode(database) & 0xFF) {
                    throw BusyBeforeFirstRow()
                }
                throw Self.error(status, database: database)
            }
            let columns = statement.columns ?? SQLiteColumns(statement.handle)
            statement.columns = columns
            let values = Self.values(of: statement.handle, count: columns.count)
            rows.append(SQLiteStoredRow(columns: columns, values: values))
        }
        return rows
    }

    /// Finalizes the statements and closes the connection.
    func close() {
        finalizeStatements()
        sqlite3_close_v2(database)
        database = nil
    }

    private func prepared(_ sql: String, database: OpaquePointer) throws -> PreparedStatement {
        if let kept = statements[sql] { return kept }
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(database, sql, -1, 0, &handle, nil)
        guard status == SQLITE_OK, let handle else { throw Self.error(status, database: database) }
        let statement = PreparedStatement(handle: handle, changesSchema: Self.changesSchema(sql))
        if statements.count >= Self.maximumKeptStatements { finalizeStatements() }
        statements[sql] = statement
        return statement
    }

    /// After a schema change every kept statement is prepared again, so a `SELECT *` never
    /// reads with the column names of the old table.
    private func finalizeStatements() {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        statements.removeAll()
    }

    /// Read once per statement text, when it is prepared.
    private static func changesSchema(_ sql: String) -> Bool {
        let start = sql.drop { $0.isWhitespace }.prefix(6).uppercased()
        return ["CREATE", "ALTER ", "DROP "].contains { start.hasPrefix($0) }
    }

    private func bind(_ values: [StoreQuery.Value], to statement: OpaquePointer, database: OpaquePointer) throws {
        for (offset, value) in values.enumerated() {
            let position = Int32(offset + 1)
            let status: Int32
            switch value {
            case .text(let text):
                status = sqlite3_bind_text64(
                    statement, position, text, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            case .integer(let integer):
                status = sqlite3_bind_int64(statement, position, integer)
            case .null:
                status = sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw Self.error(status, database: database) }
        }
    }

    private static func values(of statement: OpaquePointer, count: Int) -> [SQLiteValue] {
        (0..<Int32(count)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT:
                return .real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT, SQLITE_BLOB:
                // Text is read with its length: it may hold NUL bytes.
                guard let bytes = sqlite3_column_text(statement, column) else { return .text("") }
                let length = Int(sqlite3_column_bytes(statement, column))
                return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
            default:
                return .null
            }
        }
    }

    /// SQLite's "copy the value now" destructor.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Uniqueness and foreign-key violations become ``StoreError/Code/conflict`` (PostgreSQL
    /// 23505 and 23503 do too); a lock held past the busy timeout is ``SQLiteExecutor/busy``.
    static func error(_ status: Int32, database: OpaquePointer) -> StoreError {
        let extended = sqlite3_extended_errcode(database)
        // Plain SQLITE_CONSTRAINT, then its UNIQUE, PRIMARYKEY, FOREIGNKEY and ROWID forms.
        switch extended {
        case SQLITE_CONSTRAINT, 2067, 1555, 787, 2579:
            return StoreError(.conflict, "a unique value already exists or a referenced row is missing")
        default:
            break
        }
        switch extended & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return SQLiteExecutor.busy
        default: return StoreError(.unavailable, "SQLite: \(String(cString: sqlite3_errmsg(database)))")
        }
    }
}

/// Column names of a statement's result, by position.
final class SQLiteColumns: Sendable {
    let count: Int
    private let positions: [String: Int]

    init(_ statement: OpaquePointer) {
        count = Int(sqlite3_column_count(statement))
        var positions: [String: Int] = [:]
        for column in 0..<count {
            let name = String(cString: sqlite3_column_name(statement, Int32(column)))
            if positions[name] == nil { positions[name] = column }
        }
        self.positions = positions
    }

    func position(of name: String) -> Int? { positions[name] }
}

/// One value of an SQLite row.
enum SQLiteValue: Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null
}

/// An SQLite row read by column name, with SQLite's own conversions between text and numbers.
struct SQLiteStoredRow: StoredRow {
    let columns: SQLiteColumns
    let values: [SQLiteValue]

    private func value(_ column: String) -> SQLiteValue {
        columns.position(of: column).map { values[$0] } ?? .null
    }

    func optionalText(_ column: String) -> String? {
        switch value(column) {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        case .null: return nil
        }
    }

    func optionalInteger(_ column: String) -> Int64? {
        switch value(column) {
        case .integer(let integer): return integer
        case .real(let real): return Int64(exactly: real.rounded(.towardZero))
        case .text(let text): return Int64(text)
        case .null: return nil
        }
    }
}
