import Foundation
import Synchronization
import UMFAStorage

/// What `validate-token` reads on every call, remembered for a short time: the application an
/// API key belongs to, and the user a login token's credential is registered to. An application
/// backend that checks every request's token then costs the database nothing per check.
///
/// How stale it can be:
/// - A change made through this server clears it at once. It watches every store statement as it
///   finishes, and any statement that can delete a credential, a user, an API key or an
///   application, or change an application, clears everything (see ``clears(_:)``).
/// - A change made by another instance on a shared database is seen here within ``lifetime``
///   (`UMFA_VALIDATION_CACHE_SECONDS`, default 5; `0` turns the cache off).
///
/// Only what exists is remembered: an unknown key or credential is read again each time, so a
/// new key or passkey works at once everywhere. A read that overlapped a clearing statement is
/// not remembered (each read carries the generation it began in), so a deletion can never be
/// undone here by a read that saw the row just before it went.
final class ValidationCache: StoreQueryObserver, Sendable {
    /// A credential, as validate-token names it.
    struct CredentialKey: Hashable, Sendable {
        let applicationID: UUID
        let credentialID: [UInt8]
    }

    private struct Entry<Value: Sendable>: Sendable {
        let value: Value
        let expires: Date
    }

    private struct State: Sendable {
        var generation: UInt64 = 0
        var applications: [[UInt8]: Entry<ApplicationRecord>] = [:]
        var owners: [CredentialKey: Entry<String>] = [:]
    }

    /// How long an entry is trusted; zero turns the cache off.
    let lifetime: TimeInterval
    /// The most entries of each kind; past it, expired ones go, then all of them.
    let capacity: Int
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// Creates an empty cache.
    init(lifetime: TimeInterval, capacity: Int = 10_000, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// The application of the API key whose SHA-256 is `keyHash`, from memory or from `read`.
    func application(
        forKeyHash keyHash: [UInt8], read: () async throws -> ApplicationRecord?
    ) async throws -> ApplicationRecord? {
        try await lookUp(\.applications, keyHash, read: read)
    }

    /// The user id `key`'s credential is registered to, from memory or from `read`.
    func owner(of key: CredentialKey, read: () async throws -> String?) async throws -> String? {
        try await lookUp(\.owners, key, read: read)
    }

    /// How many entries are held, of both kinds.
    var count: Int { state.withLock { $0.applications.count + $0.owners.count } }

    /// Whether a finished statement may have removed or changed what the cache holds: one that
    /// deletes credentials, users, API keys or applications, or updates any of them but
    /// credentials (a login's own write), a `WITH` statement with such a write, or one whose verb
    /// or table is not known.
    static func clears(_ statement: StoreStatement) -> Bool {
        switch statement.verb {
        case .select, .insert: return false
        case .delete:
            return statement.table.map { ["credentials", "users", "api_keys", "applications"].contains($0) } ?? true
        case .update: return statement.table.map { ["users", "api_keys", "applications"].contains($0) } ?? true
        // A `WITH` statement clears when one of its writes would; any other verb always.
        case .other: return statement.writes.isEmpty || statement.writes.contains(where: clears)
        }
    }

    func statementFinished(_ statement: StoreStatement, duration: Duration, failed: Bool) {
        guard Self.clears(statement) else { return }
        state.withLock { state in
            state.generation &+= 1
            state.applications.removeAll()
            state.owners.removeAll()
        }
    }

    private func lookUp<Key: Hashable & Sendable, Value: Sendable>(
        _ table: WritableKeyPath<State, [Key: Entry<Value>]>, _ key: Key, read: () async throws -> Value?
    ) async throws -> Value? {
        guard lifetime > 0 else { return try await read() }
        let now = now()
        let (hit, generation) = state.withLock { state -> (Value?, UInt64) in
            guard let entry = state[keyPath: table][key], entry.expires > now else { return (nil, state.generation) }
            return (entry.value, state.generation)
        }
        if let hit { return hit }
        guard let value = try await read() else { return nil }
        state.withLock { state in
            // A statement that could remove this row finished while it was read: not remembered.
            guard state.generation == generation else { return }
            if state[keyPath: table].count >= capacity {
                state[keyPath: table] = state[keyPath: table].filter { $0.value.expires > now }
                if state[keyPath: table].count >= capacity { state[keyPath: table].removeAll() }
            }
            state[keyPath: table][key] = Entry(value: value, expires: now.addingTimeInterval(lifetime))
        }
        return value
    }
}

/// Several store observers as one: the metrics and the validation cache both watch statements.
struct StoreObservers: StoreQueryObserver {
    let observers: [any StoreQueryObserver]

    func statementFinished(_ statement: StoreStatement, duration: Duration, failed: Bool) {
        for observer in observers { observer.statementFinished(statement, duration: duration, failed: failed) }
    }
}
