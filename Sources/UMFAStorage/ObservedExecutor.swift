import Foundation
import Synchronization

/// Told how long each store statement took, for metrics: `statement` is a short label such as
/// `SELECT credentials` (the verb and the first table), never a value.
public protocol StoreQueryObserver: Sendable {
    /// One statement finished (or failed) after `duration`.
    func statementFinished(_ statement: String, duration: Duration, failed: Bool)
}

/// An executor that times every statement of another and reports it to an observer.
struct ObservedExecutor: SQLExecutor {
    let inner: any SQLExecutor
    let observer: any StoreQueryObserver

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        let start = ContinuousClock.now
        do {
            let rows = try await inner.rows(query)
            observer.statementFinished(
                StatementLabel.of(query.sql), duration: ContinuousClock.now - start, failed: false)
            return rows
        } catch {
            observer.statementFinished(
                StatementLabel.of(query.sql), duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }

    func migrate(_ migrations: [[String]]) async throws { try await inner.migrate(migrations) }

    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    {
        try await inner.underMigrationLock(body)
    }

    func close() async throws { try await inner.close() }
}

/// `SELECT credentials`, `UPDATE oob_transactions`: the verb and the table a statement starts
/// with, computed once per statement text (the texts are the fixed ones of ``StoreQueries``).
enum StatementLabel {
    private static let cache = Mutex<[String: String]>([:])

    static func of(_ sql: String) -> String {
        if let known = cache.withLock({ $0[sql] }) { return known }
        let label = make(sql)
        cache.withLock { cache in
            if cache.count < 1000 { cache[sql] = label }
        }
        return label
    }

    static func make(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" || $0 == "," }).map(String.init)
        guard let verb = words.first?.uppercased() else { return "other" }
        let marker: String?
        switch verb {
        case "SELECT", "DELETE": marker = "FROM"
        case "INSERT": marker = "INTO"
        case "UPDATE": marker = nil
        default: return verb.lowercased()
        }
        let index = marker.flatMap { marker in words.firstIndex { $0.uppercased() == marker } } ?? 0
        let table = words.indices.contains(index + 1) ? words[index + 1] : "?"
        let safe = table.allSatisfy { $0.isLetter || $0 == "_" } ? table.lowercased() : "?"
        return "\(verb) \(safe)"
    }
}

extension ServedStore {
    /// The same store, with every statement timed and reported to `observer`.
    public func observed(by observer: any StoreQueryObserver) -> ServedStore {
        guard let sql = store as? SQLStore else { return self }
        return ServedStore(
            store: SQLStore(executor: ObservedExecutor(inner: sql.executor, observer: observer)), pool: pool,
            startup: startup)
    }
}
