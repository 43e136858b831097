import Foundation
import Logging
import PostgresNIO

/// Migrations and other start-up work under PostgreSQL's advisory lock, so several instances
/// starting together run it once.
///
/// The lock is one per schema (the two-key form of `pg_advisory_lock`: UMFA's class and a hash
/// of `current_schema()`, where the tables live), so deployments in separate schemas of one
/// database start without waiting for each other; a hash collision only makes two of them wait.
extension PostgresExecutor {
    /// The first key of UMFA's migration lock ("UMFA" in ASCII), a class of its own.
    static let migrationLockClass: Int32 = 0x554d_4641

    /// Takes the migration lock of the connection's schema.
    static let migrationLock = PostgresQuery(
        unsafeSQL: "SELECT pg_advisory_lock(\(migrationLockClass), hashtext(coalesce(current_schema(), '')))")
    /// Gives the migration lock of the connection's schema back.
    static let migrationUnlock = PostgresQuery(
        unsafeSQL: "SELECT pg_advisory_unlock(\(migrationLockClass), hashtext(coalesce(current_schema(), '')))")

    func migrate(_ migrations: [[String]]) async throws {
        let logger = logger
        let (lock, unlock) = (Self.migrationLock, Self.migrationUnlock)
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
        let (lock, unlock) = (Self.migrationLock, Self.migrationUnlock)
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
