import Foundation
import Logging
import PostgresNIO

/// Runs statements on PostgreSQL through a connection pool. The shared statements use `?`
/// placeholders; they become `$1, $2, …` here. Migrations take an advisory lock, so several
/// instances starting together migrate once.
final class PostgresExecutor: SQLExecutor {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger

    /// A fixed key for `pg_advisory_lock`, UMFA's migration lock.
    static let migrationLockKey: Int64 = 0x554d_4641_4d49_4752

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    func rows(_ query: StoreQuery) async throws -> [any StoredRow] {
        do {
            let sequence = try await client.query(Self.postgresQuery(query), logger: logger)
            var rows: [any StoredRow] = []
            for try await row in sequence { rows.append(PostgresStoredRow(row: row.makeRandomAccess())) }
            return rows
        } catch let error as PSQLError {
            throw Self.storeError(error)
        }
    }

    func migrate(_ migrations: [[String]]) async throws {
        do {
            try await client.withConnection { connection in
                _ = try await connection.query(
                    "SELECT pg_advisory_lock(\(Self.migrationLockKey))", logger: self.logger)
                do {
                    try await self.applyMigrations(migrations, on: connection)
                    _ = try await connection.query(
                        "SELECT pg_advisory_unlock(\(Self.migrationLockKey))", logger: self.logger)
                } catch {
                    _ = try? await connection.query(
                        "SELECT pg_advisory_unlock(\(Self.migrationLockKey))", logger: self.logger)
                    throw error
                }
            }
        } catch let error as PSQLError {
            throw Self.storeError(error)
        }
    }

    private func applyMigrations(_ migrations: [[String]], on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
            logger: logger)
        var applied = Set<Int64>()
        for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger)
            .decode(Int64.self)
        {
            applied.insert(version)
        }
        for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
            _ = try await connection.query("BEGIN", logger: logger)
            do {
                for statement in statements {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let version = Int64(index + 1)
                let now = StoredValue.milliseconds(Date())
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(version), \(now))", logger: logger)
                _ = try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    func close() async throws {
        runner.cancel()
        _ = await runner.value
    }

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

    static func storeError(_ error: PSQLError) -> StoreError {
        if let state = error.serverInfo?[.sqlState], state == "23505" || state == "23503" {
            return StoreError(.conflict, "a unique value already exists")
        }
        return StoreError(.unavailable, "PostgreSQL: \(error.code)")
    }
}

/// A PostgreSQL row read by column name.
struct PostgresStoredRow: StoredRow {
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

/// Opens the PostgreSQL store.
public enum PostgresStore {
    /// Connects to `url` (`postgres://user:pass@host:port/db`, `?sslmode=require` for TLS) and
    /// migrates the schema.
    public static func open(url: String, logger: Logger) async throws -> any UMFAStore {
        let executor = PostgresExecutor(configuration: try configuration(url), logger: logger)
        let store = SQLStore(executor: executor)
        do {
            try await store.migrate()
        } catch {
            try? await executor.close()
            throw error
        }
        return store
    }

    /// Parses a PostgreSQL URL into a client configuration. Query parameters: `sslmode`
    /// (`disable` by default, `prefer`, `require`) and `search_path` (a schema to use).
    public static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else {
            throw StoreError(.unavailable, "the PostgreSQL URL must look like postgres://user:pass@host:port/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(5)
        if let schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        return configuration
    }
}
