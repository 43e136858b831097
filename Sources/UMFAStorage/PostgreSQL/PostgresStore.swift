import Foundation
import Logging
import PostgresNIO

/// Opens the PostgreSQL store.
package enum PostgresStore {
    /// Connects to `url` (`postgres://user:pass@host:port/db`; the parameters are those of
    /// ``configuration(_:)``) and migrates the schema. Reaching a server beyond this machine
    /// in plaintext — asked for, or `sslmode=prefer` fallen back — is logged as a warning.
    ///
    /// For tools and tests: the store runs its connection pool in a task of its own until it
    /// is closed. A server runs the pool in its service group instead (``served(url:logger:)``).
    package static func open(url: String, logger: Logger) async throws -> any UMFAStore {
        let (settings, executor) = try prepare(url: url, logger: logger)
        executor.startStandalone()
        do {
            try await start(executor, settings, logger: logger)
        } catch {
            try? await executor.close()
            throw error
        }
        return SQLStore(executor: executor)
    }

    /// The store on `url` for a server's service group: its ``ServedStore/pool`` is the
    /// `Service` that runs the connection pool, and ``ServedStore/starting(_:)`` migrates the
    /// schema and runs the start-up work on a pool of its own before the group starts. Nothing
    /// connects here; a bad URL throws as in ``open(url:logger:)``.
    package static func served(url: String, logger: Logger) throws -> ServedStore {
        let (settings, executor) = try prepare(url: url, logger: logger)
        return ServedStore(
            store: SQLStore(executor: executor), pool: executor, startup: .postgres(executor, settings, logger))
    }

    /// The settings and an executor whose pool is not running yet; the plaintext warning is
    /// logged here, once.
    private static func prepare(url: String, logger: Logger) throws -> (PostgresConnectionSettings, PostgresExecutor) {
        let settings = try PostgresConnectionSettings(url: url)
        if let warning = settings.plaintextWarning { logger.warning("\(warning)", metadata: metadata(settings)) }
        let executor = PostgresExecutor(
            configuration: settings.pool, leaseTimeout: settings.connectTimeout, logger: logger)
        return (settings, executor)
    }

    /// Migrates the schema and logs how the connection is protected, with a pool running.
    static func start(_ executor: PostgresExecutor, _ settings: PostgresConnectionSettings, logger: Logger)
        async throws
    {
        try await SQLStore(executor: executor).migrate()
        let negotiated = settings.needsTLSProbe ? await negotiatedTLS(executor) : nil
        if settings.plaintextWarning == nil, let notice = settings.startupNotice(negotiatedTLS: negotiated) {
            logger.log(level: notice.level, "\(notice.message)", metadata: metadata(settings))
        }
    }

    private static func metadata(_ settings: PostgresConnectionSettings) -> Logger.Metadata {
        ["postgres.sslmode": "\(settings.sslMode.rawValue)"]
    }

    /// Whether a pooled connection uses TLS, from the server's own view (`pg_stat_ssl`);
    /// `nil` when it cannot be read.
    static func negotiatedTLS(_ executor: PostgresExecutor) async -> Bool? {
        let query = StoreQuery(
            "SELECT CASE WHEN ssl THEN 1 ELSE 0 END AS tls FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        guard let rows = try? await executor.rows(query), let value = rows.first?.optionalInteger("tls") else {
            return nil
        }
        return value == 1
    }

    /// Parses a PostgreSQL URL into a pool configuration; see ``PostgresConnectionSettings``
    /// for the query parameters (`sslmode`, `sslrootcert`, `host`, `search_path`,
    /// `connect_timeout`, `pool_size`, `application_name`, `synchronous_commit`). A bad value throws a
    /// ``StoreError`` naming the parameter.
    static func configuration(_ text: String) throws -> PostgresPoolConfiguration {
        try PostgresConnectionSettings(url: text).pool
    }

    static let synchronousCommitValues = ["on", "off", "local", "remote_write", "remote_apply"]

    /// Twice this machine's cores plus one (the PostgreSQL wiki's starting point for a pool),
    /// at most 100. A fixed 16 connections on two cores gave no more throughput than 4 and
    /// took peak RSS past 100 MB (docs/performance/README.md).
    package static var defaultPoolSize: Int { min(100, ProcessInfo.processInfo.activeProcessorCount * 2 + 1) }

    /// The `connect_timeout` query parameter, 5 seconds when absent.
    static func connectTimeout(_ text: String) throws -> Duration {
        try PostgresConnectionSettings.connectTimeout(
            URLComponents(string: text)?.queryItems?.first(where: { $0.name == "connect_timeout" })?.value)
    }
}
