import Logging
import ServiceLifecycle

/// A store as a server keeps it: the store, the `Service` that keeps its connections while the
/// server runs, and a way to do start-up work on it before the service group starts.
package struct ServedStore: Sendable {
    /// How start-up work gets connections.
    enum Startup: Sendable {
        /// The store is ready as it is (SQLite: opened and migrated).
        case ready
        /// A pool of its own for the start-up work, after migrating (PostgreSQL).
        case postgres(PostgresExecutor, PostgresConnectionSettings, Logger)
    }

    /// The store.
    package let store: any UMFAStore
    /// Runs the store's connection pool (PostgreSQL), to be run by the server's service group
    /// before any service that uses the store, so that it stops after them; `nil` when the
    /// store needs nothing running (SQLite).
    package let pool: (any Service)?
    let startup: Startup

    /// A store that needs nothing running and is ready for start-up work as it is.
    package init(store: any UMFAStore) {
        self.init(store: store, pool: nil, startup: .ready)
    }

    init(store: any UMFAStore, pool: (any Service)?, startup: Startup) {
        self.store = store
        self.pool = pool
        self.startup = startup
    }

    /// Runs `body` — the server's start-up work: bootstrap, signing keys — with the store
    /// usable, before the service group runs ``pool``; PostgreSQL migrates the schema first, on
    /// a pool that lasts as long as `body`.
    package func starting<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        switch startup {
        case .ready:
            return try await body()
        case .postgres(let executor, let settings, let logger):
            return try await executor.withPool {
                try await PostgresStore.start(executor, settings, logger: logger)
                return try await body()
            }
        }
    }
}
