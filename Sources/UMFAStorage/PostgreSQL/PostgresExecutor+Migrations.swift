import Foundation
import Logging
import PostgresNIO

/// Migrations and other start-up work under PostgreSQL's advisory lock, so several instances
/// starting together run it once.
extension PostgresExecutor {
    /// A fixed key for `pg_advisory_lock`, UMFA's migration lock.
    static let migrationLockKey: Int64 = 0x554d_4641_4d49_4752

    func migrate(_ migrations: [[String]]) async throws {
        let logger = logger
        let lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(Self.migrationLockKey))")
        let unlock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.migrationLockKey))")
        do {
            _ = try await withConnection { connection in
                _ = try await Self.run(lock, on: connection, logger: logger)
                do {
                    try await Self.applyMigrations(migrations, on: connection, logger: logger)
                    _ = try await Self.run(unlock, on: connection, logger: logger)
                } catch {
                    _ = try? await Self.run(unlock, on: connection, logger: logger)
                    throw error
                }
                return true
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    {
        let logger = logger
        let lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(Self.migrationLockKey))")
        let unlock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.migrationLockKey))")
        do {
            return try await withConnection { connection in
                _ = try await Self.run(lock, on: connection, logger: logger)
                do {
                    let value = try await body()
                    _ = try await Self.run(unlock, on: connection, logger: logger)
                    return value
                } catch {
                    _ = try? await Self.run(unlock, on: connection, logger: logger)
                    throw error
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.storeError(error)
        }
    }

    private static func applyMigrations(
        _ migrations: [[String]], on connection: PostgresConnection, logger: Logger
    ) async throws {
        func execute(_ sql: String) async throws -> [PostgresRandomAccessRow] {
            try await run(PostgresQuery(unsafeSQL: sql), on: connection, logger: logger)
        }
        _ = try await execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        let applied = Set(
            try await execute("SELECT version FROM schema_migrations").compactMap {
                PostgresStoredRow(row: $0).optionalInteger("version")
            })
        for (index, statements) in migrations.enumerated() where !applied.contains(Int64(index + 1)) {
            _ = try await execute("BEGIN")
            do {
                for statement in statements { _ = try await execute(statement) }
                _ = try await execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(index + 1), \(StoredValue.milliseconds(Date())))"
                )
                _ = try await execute("COMMIT")
            } catch {
                _ = try? await execute("ROLLBACK")
                throw error
            }
        }
    }
}
