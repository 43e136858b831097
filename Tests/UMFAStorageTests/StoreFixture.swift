import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import UMFAStorage

/// The storage engines every conformance test runs against.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// The environment the PostgreSQL cases need; missing, they fail instead of being skipped.
enum TestDatabase {
    static let urlVariable = "UMFA_TEST_POSTGRES_URL"

    /// The base URL of the throwaway PostgreSQL database.
    static func baseURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else {
            throw FixtureFailure(
                "\(urlVariable) is not set: the PostgreSQL cases need a database; run through scripts/with-postgres.sh "
                    + "(for example: scripts/with-postgres.sh swift test --skip-build)")
        }
        return url
    }

    /// `url` with one more query parameter.
    static func url(_ url: String, adding name: String, _ value: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "\(name)=\(value)"
    }

    /// Runs `sql` on a connection of its own, outside any store.
    static func execute(_ sql: String) async throws {
        _ = try await rows(sql)
    }

    /// Runs `sql` on a connection of its own and returns the rows.
    static func rows(_ sql: String) async throws -> [PostgresRandomAccessRow] {
        let connection = try await connect()
        do {
            let rows = try await rows(sql, on: connection)
            try await connection.close()
            return rows
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A connection of its own to the test database, outside any store; the caller closes it.
    static func connect() async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: try PostgresStore.configuration(try baseURL()).connection, id: 1, logger: logger)
    }

    /// Runs `sql` on `connection` and returns the rows.
    static func rows(_ sql: String, on connection: PostgresConnection) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
            rows.append(row.makeRandomAccess())
        }
        return rows
    }

    static let logger: Logger = {
        var logger = Logger(label: "umfa-storage-test")
        logger.logLevel = .critical
        return logger
    }()
}

/// Where one test's data lives: a temporary SQLite file or a fresh PostgreSQL schema.
struct StoreLocation: Sendable {
    let engine: Engine
    /// The SQLite file, or the PostgreSQL URL selecting the schema.
    let address: String
    /// The PostgreSQL schema, `t_<random>`.
    let schema: String?

    /// A fresh, empty location.
    static func make(_ engine: Engine) async throws -> StoreLocation {
        switch engine {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("umfa-store-\(UUID().uuidString).sqlite").path
            return StoreLocation(engine: engine, address: path, schema: nil)
        case .postgres:
            let base = try TestDatabase.baseURL()
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await TestDatabase.execute("CREATE SCHEMA \(schema)")
            // A generous connect timeout: with the whole test suite running on a small machine, a
            // connection can take seconds to come; the fault tests set their own.
            let url = TestDatabase.url(
                TestDatabase.url(base, adding: "search_path", schema), adding: "connect_timeout", "30")
            return StoreLocation(engine: engine, address: url, schema: schema)
        }
    }

    /// Opens (and migrates) a store here; several may be open on one location at once.
    func open() async throws -> any UMFAStore {
        switch engine {
        case .sqlite: return try await SQLiteStore.open(path: address, logger: TestDatabase.logger)
        case .postgres: return try await PostgresStore.open(url: address, logger: TestDatabase.logger)
        }
    }

    /// Removes the file or drops the schema.
    func remove() async {
        switch engine {
        case .sqlite:
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: address + suffix) }
        case .postgres:
            if let schema { try? await TestDatabase.execute("DROP SCHEMA \(schema) CASCADE") }
        }
    }

    /// A fresh store for one test, closed and removed afterwards.
    static func withStore(_ engine: Engine, _ body: (any UMFAStore) async throws -> Void) async throws {
        let location = try await make(engine)
        do {
            let store = try await location.open()
            do {
                try await body(store)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        } catch {
            await location.remove()
            throw error
        }
        await location.remove()
    }
}

/// The stores one test opened on a location, all closed at its end whatever happens (an
/// SQLite connection left open traps in debug builds).
final class OpenedStores: Sendable {
    let location: StoreLocation
    private let stores = Mutex<[any UMFAStore]>([])

    init(_ location: StoreLocation) { self.location = location }

    /// Opens (and migrates) one more store on the location.
    func open() async throws -> any UMFAStore {
        let store = try await location.open()
        stores.withLock { $0.append(store) }
        return store
    }

    /// A fresh location for one test; its stores are closed and it is removed afterwards.
    static func with(_ engine: Engine, _ body: (OpenedStores) async throws -> Void) async throws {
        let opened = OpenedStores(try await StoreLocation.make(engine))
        do {
            try await body(opened)
        } catch {
            await opened.closeAll()
            throw error
        }
        await opened.closeAll()
    }

    private func closeAll() async {
        for store in stores.withLock({ $0 }) { try? await store.close() }
        await location.remove()
    }
}

extension UMFAStore {
    /// Runs a raw statement through the store's own engine (tests only).
    func rawRows(_ sql: String) async throws -> [any StoredRow] {
        guard let store = self as? SQLStore else { throw FixtureFailure("not an SQL store") }
        return try await store.executor.rows(StoreQuery(sql))
    }

    /// The versions in `schema_migrations`, one entry per row.
    func migrationVersions() async throws -> [Int64] {
        try await rawRows("SELECT version FROM schema_migrations ORDER BY version").compactMap {
            $0.optionalInteger("version")
        }
    }
}

/// A fixture could not be set up.
struct FixtureFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
