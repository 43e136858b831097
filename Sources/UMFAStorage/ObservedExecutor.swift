import Foundation
import Synchronization
import Tracing
import UMFATokens

/// Told how long each store statement took and what kind it was (``StoreStatement``: the verb
/// and the first table, never a value), for metrics and caches.
package protocol StoreQueryObserver: Sendable {
    /// One statement finished (or failed) after `duration`.
    func statementFinished(_ statement: StoreStatement, duration: Duration, failed: Bool)
}

/// An executor that times every statement of another and reports it to an observer, and, when
/// the server traces (docs/operators/tracing.md), makes a client span of each statement and
/// transaction with the database semantic conventions: the statement's text (its values are
/// placeholders, never recorded), verb and table.
struct ObservedExecutor: SQLExecutor {
    let inner: any SQLExecutor
    let observer: any StoreQueryObserver
    /// `db.system.name`: `sqlite` or `postgresql`; `nil` makes no spans.
    var tracedSystem: String? = nil

    var dialect: SQLDialect { inner.dialect }

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        let statement = StoreStatement.of(query.sql)
        // A statement is traced as part of a traced request or delivery only: the background
        // loops' polls would otherwise each start a trace of their own, several a second.
        guard let tracedSystem, ServiceContext.current != nil else { return try await observed(query, statement) }
        return try await QuietSpan.run(statement.label, ofKind: .client) { span in
            span.attributes["db.system.name"] = tracedSystem
            span.attributes["db.operation.name"] = statement.verb == .other ? statement.label : statement.verb.rawValue
            span.attributes["db.collection.name"] = statement.table
            span.attributes["db.query.text"] = query.sql
            return try await observed(query, statement)
        }
    }

    private func observed(_ query: StoreQuery, _ statement: StoreStatement) async throws -> [any StoredRow] {
        let start = ContinuousClock.now
        do {
            let rows = try await inner.rows(query)
            observer.statementFinished(statement, duration: ContinuousClock.now - start, failed: false)
            return rows
        } catch {
            observer.statementFinished(statement, duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }

    /// Each statement of the transaction is reported once it has ended (committed, rolled back
    /// or failed), with an equal share of the transaction's time.
    func atomically(_ steps: [TransactionStep]) async throws -> [[any StoredRow]]? {
        guard let tracedSystem, ServiceContext.current != nil else { return try await observedTransaction(steps) }
        return try await QuietSpan.run("TRANSACTION", ofKind: .client) { span in
            span.attributes["db.system.name"] = tracedSystem
            span.attributes["db.operation.name"] = "TRANSACTION"
            span.attributes["db.operation.batch.size"] = steps.count
            span.attributes["umfa.db.statements"] = steps.map { StoreStatement.of($0.query.sql).label }
            return try await observedTransaction(steps)
        }
    }

    private func observedTransaction(_ steps: [TransactionStep]) async throws -> [[any StoredRow]]? {
        let start = ContinuousClock.now
        let report = { (failed: Bool) in
            let share = (ContinuousClock.now - start) / max(1, steps.count)
            for step in steps {
                observer.statementFinished(StoreStatement.of(step.query.sql), duration: share, failed: failed)
            }
        }
        do {
            let results = try await inner.atomically(steps)
            report(false)
            return results
        } catch {
            report(true)
            throw error
        }
    }

    func migrate(_ migrations: [[String]]) async throws { try await inner.migrate(migrations) }

    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    {
        try await inner.underMigrationLock(body)
    }

    func probe() async throws { try await inner.probe() }

    func makeCommitsDurable() async throws { try await inner.makeCommitsDurable() }

    func close() async throws { try await inner.close() }
}

/// What a store statement is: its verb and the table it starts with (`SELECT credentials`,
/// `UPDATE oob_transactions`), read once per statement text (the texts are the fixed ones of
/// ``StoreQueries``). Never a value of the statement.
package struct StoreStatement: Sendable, Hashable {
    /// The statement's first word.
    package enum Verb: String, Sendable {
        case select = "SELECT"
        case insert = "INSERT"
        case update = "UPDATE"
        case delete = "DELETE"
        /// Any other first word (`WITH`, `BEGIN`, …).
        case other
    }

    /// What it does.
    package let verb: Verb
    /// The table it reads or writes first, lowercased; `nil` when that is not a plain name or
    /// the verb is ``Verb/other``.
    package let table: String?
    /// The metrics label: `SELECT credentials`, `DELETE ?` for an unreadable table, the writes
    /// of a `WITH` statement (`WITH DELETE challenges + UPDATE credentials`), or the lowercased
    /// first word for other verbs (`begin`, `with` when it writes nothing).
    package let label: String
    /// For a `WITH` statement, each data-modifying statement in it, in order (their verb and
    /// table); empty for any other.
    package let writes: [StoreStatement]

    private static let cache = Mutex<[String: StoreStatement]>([:])

    /// The statement of `sql`, from a cache of the texts seen so far.
    static func of(_ sql: String) -> StoreStatement {
        if let known = cache.withLock({ $0[sql] }) { return known }
        let statement = StoreStatement(sql: sql)
        cache.withLock { cache in
            if cache.count < 1000 { cache[sql] = statement }
        }
        return statement
    }

    /// Reads the verb and first table of `sql`.
    package init(sql: String) {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" || $0 == "," }).map(String.init)
        let first = words.first?.uppercased()
        guard let first, let verb = Verb(rawValue: first), verb != .other else {
            self.verb = .other
            self.table = nil
            let writes = first == "WITH" ? Self.writes(words) : []
            self.writes = writes
            self.label =
                writes.isEmpty ? first?.lowercased() ?? "other" : "WITH " + writes.map(\.label).joined(separator: " + ")
            return
        }
        self.writes = []
        let marker: String?
        switch verb {
        case .select, .delete: marker = "FROM"
        case .insert: marker = "INTO"
        case .update, .other: marker = nil
        }
        let index = marker.flatMap { marker in words.firstIndex { $0.uppercased() == marker } } ?? 0
        let word = words.indices.contains(index + 1) ? words[index + 1] : ""
        let table = !word.isEmpty && word.allSatisfy { $0.isLetter || $0 == "_" } ? word.lowercased() : nil
        self.verb = verb
        self.table = table
        self.label = "\(verb.rawValue) \(table ?? "?")"
    }
}

extension StoreStatement {
    private init(verb: Verb, table: String?) {
        self.verb = verb
        self.table = table
        self.writes = []
        self.label = "\(verb.rawValue) \(table ?? "?")"
    }

    /// The data-modifying statements of a `WITH` statement's words: `DELETE FROM t`, `UPDATE t`,
    /// `INSERT INTO t`, wherever they stand.
    private static func writes(_ words: [String]) -> [StoreStatement] {
        func table(_ index: Int) -> String? {
            guard words.indices.contains(index) else { return nil }
            let word = words[index]
            guard !word.isEmpty, word.allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
            return word.lowercased()
        }
        var writes: [StoreStatement] = []
        for (index, word) in words.enumerated() {
            switch word.uppercased() {
            case "DELETE" where words.indices.contains(index + 1) && words[index + 1].uppercased() == "FROM":
                writes.append(StoreStatement(verb: .delete, table: table(index + 2)))
            case "INSERT" where words.indices.contains(index + 1) && words[index + 1].uppercased() == "INTO":
                writes.append(StoreStatement(verb: .insert, table: table(index + 2)))
            case "UPDATE" where table(index + 1).map { !["set", "skip", "nowait", "of"].contains($0) } ?? true:
                writes.append(StoreStatement(verb: .update, table: table(index + 1)))
            default: break
            }
        }
        return writes
    }
}

extension ServedStore {
    /// The same store, with every statement timed and reported to `observer`, and traced when
    /// `tracing` (a span per statement and per transaction).
    package func observed(by observer: any StoreQueryObserver, tracing: Bool = false) -> ServedStore {
        guard let sql = store as? SQLStore else { return self }
        let system = sql.executor is PostgresExecutor ? "postgresql" : "sqlite"
        let executor = ObservedExecutor(inner: sql.executor, observer: observer, tracedSystem: tracing ? system : nil)
        return ServedStore(store: SQLStore(executor: executor), pool: pool, startup: startup)
    }
}
