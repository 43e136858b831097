import Foundation
import UMFATokens

/// Runs ``StoreQuery`` statements on one SQL engine.
protocol SQLExecutor: Sendable {
    /// The engine's SQL: a store may send an engine its own statement where the shared one
    /// would cost more round trips (docs/performance/README.md, "PostgreSQL round trips").
    var dialect: SQLDialect { get }
    /// Runs a statement and returns its rows.
    func rows(_ query: StoreQuery) async throws -> [any StoredRow]
    /// Runs `steps` in one transaction, in order: all of them take effect, or none. Each step's
    /// rows come back in order; `nil`, with everything rolled back, when a step that
    /// ``TransactionStep/needsRow`` returned none. A failure rolls back; it is never tried again.
    func atomically(_ steps: [TransactionStep]) async throws -> [[any StoredRow]]?
    /// Applies the migrations the database has not seen yet, once even when several
    /// processes start together.
    func migrate(_ migrations: [[String]]) async throws
    /// Runs `body` while holding the lock migrations take, so no other process on the database
    /// runs its own `body` (or migrations) meanwhile. For start-up work only.
    func underMigrationLock<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value
    /// Proves the database can be reached and written now; throws a ``StoreError`` saying why
    /// not. Writes nothing.
    func probe() async throws
    /// Returns once every write committed so far would survive a power loss.
    func makeCommitsDurable() async throws
    /// Closes the connections.
    func close() async throws
}

/// The SQL engines a store runs on.
enum SQLDialect: Sendable {
    case sqlite
    case postgresql
}

/// ``UMFAStore`` over any SQL engine: the statements are shared, the engine runs them.
struct SQLStore: UMFAStore {
    let executor: any SQLExecutor

    func migrate() async throws {
        try await executor.migrate(Schema.migrations)
    }

    func close() async throws {
        try await executor.close()
    }

    func probe() async throws {
        try await executor.probe()
    }

    private func run(_ query: StoreQuery) async throws {
        _ = try await executor.rows(query)
    }

    func insertApplication(_ application: ApplicationRecord) async throws {
        try await run(StoreQueries.insertApplication(application))
    }

    func application(id: UUID) async throws -> ApplicationRecord? {
        try await executor.rows(StoreQueries.application(id)).first.map { try ApplicationRecord(row: $0) }
    }

    func updateApplication(_ application: ApplicationRecord) async throws {
        try await run(StoreQueries.updateApplication(application))
    }

    func applications() async throws -> [ApplicationRecord] {
        // Sorted here too: PostgreSQL orders text by the database's collation, SQLite by bytes.
        try await executor.rows(StoreQueries.applications).map { try ApplicationRecord(row: $0) }.sorted {
            ($0.createdAt, $0.id.uuidString.lowercased()) < ($1.createdAt, $1.id.uuidString.lowercased())
        }
    }

    func applications(rpID: String) async throws -> [ApplicationRecord] {
        try await executor.rows(StoreQueries.applications(rpID: rpID)).map { try ApplicationRecord(row: $0) }.sorted {
            ($0.createdAt, $0.id.uuidString.lowercased()) < ($1.createdAt, $1.id.uuidString.lowercased())
        }
    }

    func insertAPIKey(hash: [UInt8], applicationID: UUID, createdAt: Date) async throws {
        try await run(StoreQueries.insertAPIKey(hash: hash, applicationID: applicationID, createdAt: createdAt))
    }

    func application(forAPIKeyHash hash: [UInt8]) async throws -> ApplicationRecord? {
        try await executor.rows(StoreQueries.application(apiKeyHash: hash)).first.map { try ApplicationRecord(row: $0) }
    }

    func user(applicationID: UUID, userID: String) async throws -> UserRecord? {
        try await executor.rows(StoreQueries.user(applicationID: applicationID, userID: userID)).first.map {
            try UserRecord(row: $0)
        }
    }

    func user(applicationID: UUID, userHandle: [UInt8]) async throws -> UserRecord? {
        try await executor.rows(StoreQueries.user(applicationID: applicationID, userHandle: userHandle)).first.map {
            try UserRecord(row: $0)
        }
    }

    func insertUser(_ user: UserRecord) async throws -> UserRecord {
        try await run(StoreQueries.insertUser(user))
        guard let stored = try await self.user(applicationID: user.applicationID, userID: user.userID) else {
            throw StoreError(.unavailable, "the user just inserted cannot be read back")
        }
        return stored
    }

    func credentials(applicationID: UUID, userID: String) async throws -> [StoredCredential] {
        Self.oldestFirst(
            try await executor.rows(StoreQueries.credentials(applicationID: applicationID, userID: userID)).map {
                try StoredCredential(row: $0)
            })
    }

    /// Credentials oldest first, ties by credential id bytes: the order is Swift's, whatever the
    /// engine's collation.
    static func oldestFirst(_ credentials: [StoredCredential]) -> [StoredCredential] {
        credentials.sorted {
            $0.createdAt != $1.createdAt
                ? $0.createdAt < $1.createdAt : $0.credentialID.lexicographicallyPrecedes($1.credentialID)
        }
    }

    func sampleCredentials(applicationID: UUID, seed: [UInt8]) async throws -> [StoredCredential] {
        for query in [
            StoreQueries.credentialOwner(applicationID: applicationID, atOrAfter: seed),
            StoreQueries.credentialOwner(applicationID: applicationID, atOrAfter: nil),
        ] {
            if let owner = try await executor.rows(query).first {
                return try await credentials(applicationID: applicationID, userID: try owner.text("user_id"))
            }
        }
        return []
    }

    func credential(applicationID: UUID, credentialID: [UInt8]) async throws -> StoredCredential? {
        try await executor.rows(StoreQueries.credential(applicationID: applicationID, credentialID: credentialID))
            .first.map { try StoredCredential(row: $0) }
    }

    func credentialWithOwnerHandle(applicationID: UUID, credentialID: [UInt8]) async throws -> (
        credential: StoredCredential, ownerHandle: [UInt8]
    )? {
        let query = StoreQueries.credentialWithOwnerHandle(applicationID: applicationID, credentialID: credentialID)
        guard let row = try await executor.rows(query).first, let handle = row.optionalText("owner_user_handle")
        else { return nil }
        return (try StoredCredential(row: row), try StoredValue.bytes(handle))
    }

    func insertCredential(_ credential: StoredCredential) async throws {
        try await run(StoreQueries.insertCredential(credential))
    }

    func updateCredentialUse(_ credential: StoredCredential, expectedSignCount: UInt32) async throws -> Bool {
        let query = StoreQueries.updateCredentialUse(credential, expectedSignCount: expectedSignCount)
        return try await !executor.rows(query).isEmpty
    }

    func insertFirstCredential(_ credential: StoredCredential) async throws -> Bool {
        try await !executor.rows(StoreQueries.insertFirstCredential(credential)).isEmpty
    }

    func deleteCredential(applicationID: UUID, userID: String, credentialID: [UInt8]) async throws -> Bool {
        let query = StoreQueries.deleteCredential(
            applicationID: applicationID, userID: userID, credentialID: credentialID)
        return try await !executor.rows(query).isEmpty
    }

    func insertChallenge(_ challenge: ChallengeRecord) async throws {
        try await run(StoreQueries.insertChallenge(challenge))
    }

    func consumeChallenge(_ challenge: [UInt8], applicationID: UUID, ceremony: CeremonyKind) async throws
        -> ChallengeRecord?
    {
        let query = StoreQueries.consumeChallenge(challenge, applicationID: applicationID, ceremony: ceremony)
        return try await executor.rows(query).first.map { try ChallengeRecord(row: $0) }
    }

    func purgeExpired(before date: Date) async throws {
        for query in StoreQueries.purgeExpired(before: date) { try await run(query) }
    }

    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) async throws {
        try await run(StoreQueries.insertEnrollmentToken(token))
    }

    func enrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) async throws -> EnrollmentTokenRecord? {
        let query = StoreQueries.enrollmentToken(hash: hash, applicationID: applicationID, userID: userID)
        return try await executor.rows(query).first.map { try EnrollmentTokenRecord(row: $0) }
    }

    func consumeEnrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) async throws
        -> EnrollmentTokenRecord?
    {
        let query = StoreQueries.consumeEnrollmentToken(hash: hash, applicationID: applicationID, userID: userID)
        return try await executor.rows(query).first.map {
            try EnrollmentTokenRecord(row: $0)
        }
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        // Newest first; among keys of the same millisecond the current one first, then by kid.
        try await executor.rows(StoreQueries.signingKeys).map { try SigningKeyRecord(row: $0) }.sorted {
            if $0.createdAt != $1.createdAt { return $0.createdAt > $1.createdAt }
            if ($0.retiredAt == nil) != ($1.retiredAt == nil) { return $0.retiredAt == nil }
            return $0.kid.utf8.lexicographicallyPrecedes($1.kid.utf8)
        }
    }

    func insertFirstSigningKey(
        algorithm: String, _ make: @escaping @Sendable () throws -> SigningKeyRecord
    ) async throws -> Bool {
        try await executor.underMigrationLock {
            guard try await executor.rows(StoreQueries.signingKeys(algorithm: algorithm)).isEmpty else { return false }
            try await run(StoreQueries.insertSigningKey(try make()))
            return true
        }
    }

    func insertSigningKey(_ key: SigningKeyRecord, retiringOthersAt retiring: Date) async throws {
        // Insert first, so a conflict retires nothing; then retire all but the newest key, so
        // instances rotating at once leave one key current (and a key older than the current
        // one is stored retired).
        try await run(StoreQueries.insertSigningKey(key))
        try await run(StoreQueries.retireAllButNewestSigningKey(algorithm: key.algorithm, at: retiring))
    }

    func setting(_ name: String) async throws -> String? {
        try await executor.rows(StoreQueries.setting(name)).first.map { try $0.text("value") }
    }

    func insertSettingIfAbsent(_ name: String, value: String) async throws -> String {
        try await run(StoreQueries.insertSetting(name, value: value))
        guard let stored = try await setting(name) else {
            throw StoreError(.unavailable, "the setting just inserted cannot be read back")
        }
        return stored
    }

    func deleteSetting(_ name: String) async throws {
        try await run(StoreQueries.deleteSetting(name))
    }
}
