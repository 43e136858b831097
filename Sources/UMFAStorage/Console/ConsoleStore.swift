import Foundation

/// A passkey of an operator of the admin console (docs/contract.md §8), for the server's own RP ID.
package struct ConsoleCredentialRecord: Sendable, Equatable {
    /// The credential id.
    package var credentialID: [UInt8]
    /// The COSE public key.
    package var publicKey: [UInt8]
    /// The last sign count seen.
    package var signCount: UInt32
    /// The WebAuthn user handle it was made for.
    package var userHandle: [UInt8]
    /// Whether the authenticator said it may be synced (WebAuthn's BE flag, fixed for life).
    package var backupEligible: Bool
    /// The name the operator gave it.
    package var name: String
    /// When it was enrolled.
    package var createdAt: Date
    /// When it last signed in.
    package var lastUsedAt: Date?
    /// The admin-token epoch it was enrolled under; `nil` for a passkey enrolled before epochs
    /// were kept, which signs nothing in.
    package var tokenEpoch: [UInt8]?

    /// Creates a record.
    package init(
        credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, userHandle: [UInt8], backupEligible: Bool,
        name: String, createdAt: Date, lastUsedAt: Date? = nil, tokenEpoch: [UInt8]? = nil
    ) {
        self.backupEligible = backupEligible
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.tokenEpoch = tokenEpoch
    }
}

/// A signed-in console session, by the SHA-256 of its cookie (the CSRF token is derived from the
/// cookie with the server secret, so it needs no row of its own).
package struct ConsoleSessionRecord: Sendable, Equatable {
    /// SHA-256 of the session cookie's value.
    package var sessionHash: [UInt8]
    /// The passkey that signed in.
    package var credentialID: [UInt8]
    /// When it started.
    package var createdAt: Date
    /// When it ends.
    package var expiresAt: Date

    /// Creates a record.
    package init(sessionHash: [UInt8], credentialID: [UInt8], createdAt: Date, expiresAt: Date) {
        self.sessionHash = sessionHash
        self.credentialID = credentialID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The admin console's operator passkeys and sessions, shared by every instance; and the
/// recent users of an application, for the console's user page.
package protocol ConsoleStore: Sendable {
    /// Adds an operator passkey; ``StoreError/Code/conflict`` when the id exists.
    func insertConsoleCredential(_ credential: ConsoleCredentialRecord) async throws
    /// An operator passkey by id.
    func consoleCredential(id: [UInt8]) async throws -> ConsoleCredentialRecord?
    /// Every operator passkey, oldest first.
    func consoleCredentials() async throws -> [ConsoleCredentialRecord]
    /// Records a sign-in when the stored count is still `expectedSignCount` (one statement).
    func updateConsoleCredentialUse(id: [UInt8], signCount: UInt32, expectedSignCount: UInt32, at now: Date)
        async throws -> Bool
    /// Adds a session.
    func insertConsoleSession(_ session: ConsoleSessionRecord) async throws
    /// The session with this hash, when it has not expired at `now` and its passkey still
    /// exists with the admin-token epoch `tokenEpoch`.
    func consoleSession(hash: [UInt8], at now: Date, tokenEpoch: [UInt8]) async throws -> ConsoleSessionRecord?
    /// Ends a session; `false` when there was none.
    func deleteConsoleSession(hash: [UInt8]) async throws -> Bool
    /// The sessions of existing passkeys that have not expired at `now`, oldest first.
    func consoleSessions(at now: Date) async throws -> [ConsoleSessionRecord]
    /// Removes an operator passkey and ends its sessions; the number of sessions ended, or
    /// `nil` when there was no such passkey.
    func deleteConsoleCredential(id: [UInt8]) async throws -> Int?
    /// Removes every operator passkey not enrolled under `tokenEpoch` and every session not of
    /// a remaining passkey, holding the lock migrations take (so instances starting together
    /// do it once). The numbers of passkeys and sessions removed.
    func revokeConsoleCredentials(exceptEpoch tokenEpoch: [UInt8]) async throws -> (credentials: Int, sessions: Int)
    /// The application's newest users, at most `limit`.
    func recentUsers(applicationID: UUID, limit: Int) async throws -> [UserRecord]
}

extension StoreQueries {
    static func insertConsoleCredential(_ credential: ConsoleCredentialRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO console_credentials (credential_id, public_key, sign_count, user_handle, backup_eligible,
                name, created_at, last_used_at, token_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .bytes(credential.credentialID), .bytes(credential.publicKey), .integer(Int64(credential.signCount)),
                .bytes(credential.userHandle), .bool(credential.backupEligible), .text(credential.name),
                .date(credential.createdAt),
                .optionalDate(credential.lastUsedAt), credential.tokenEpoch.map { .bytes($0) } ?? .null,
            ])
    }

    static func consoleCredential(id: [UInt8]) -> StoreQuery {
        StoreQuery("SELECT * FROM console_credentials WHERE credential_id = ?", [.bytes(id)])
    }

    static let consoleCredentials = StoreQuery(
        "SELECT * FROM console_credentials ORDER BY created_at, credential_id")

    static func updateConsoleCredentialUse(id: [UInt8], signCount: UInt32, expectedSignCount: UInt32, at now: Date)
        -> StoreQuery
    {
        StoreQuery(
            """
            UPDATE console_credentials SET sign_count = ?, last_used_at = ?
            WHERE credential_id = ? AND sign_count = ? RETURNING credential_id
            """,
            [.integer(Int64(signCount)), .date(now), .bytes(id), .integer(Int64(expectedSignCount))])
    }

    static func insertConsoleSession(_ session: ConsoleSessionRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO console_sessions (session_hash, credential_id, created_at, expires_at)
            VALUES (?, ?, ?, ?)
            """,
            [
                .bytes(session.sessionHash), .bytes(session.credentialID),
                .date(session.createdAt), .date(session.expiresAt),
            ])
    }

    static func consoleSession(hash: [UInt8], at now: Date, tokenEpoch: [UInt8]) -> StoreQuery {
        StoreQuery(
            """
            SELECT s.* FROM console_sessions s
            JOIN console_credentials c ON c.credential_id = s.credential_id
            WHERE s.session_hash = ? AND s.expires_at > ? AND c.token_epoch = ?
            """,
            [.bytes(hash), .date(now), .bytes(tokenEpoch)])
    }

    static func deleteConsoleSession(hash: [UInt8]) -> StoreQuery {
        StoreQuery("DELETE FROM console_sessions WHERE session_hash = ? RETURNING session_hash", [.bytes(hash)])
    }

    static func recentUsers(applicationID: UUID, limit: Int) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM users WHERE application_id = ? ORDER BY created_at DESC, user_id LIMIT ?",
            [.uuid(applicationID), .integer(Int64(limit))])
    }
}

extension ConsoleCredentialRecord {
    init(row: any StoredRow) throws {
        self.init(
            credentialID: try row.bytes("credential_id"), publicKey: try row.bytes("public_key"),
            signCount: UInt32(clamping: try row.integer("sign_count")), userHandle: try row.bytes("user_handle"),
            backupEligible: try row.bool("backup_eligible"), name: try row.text("name"),
            createdAt: try row.date("created_at"),
            lastUsedAt: row.optionalDate("last_used_at"),
            tokenEpoch: try row.optionalText("token_epoch").map(StoredValue.bytes))
    }
}

extension ConsoleSessionRecord {
    init(row: any StoredRow) throws {
        self.init(
            sessionHash: try row.bytes("session_hash"), credentialID: try row.bytes("credential_id"),
            createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"))
    }
}

extension SQLStore {
    func insertConsoleCredential(_ credential: ConsoleCredentialRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertConsoleCredential(credential))
    }

    func consoleCredential(id: [UInt8]) async throws -> ConsoleCredentialRecord? {
        try await executor.rows(StoreQueries.consoleCredential(id: id)).first.map(ConsoleCredentialRecord.init(row:))
    }

    func consoleCredentials() async throws -> [ConsoleCredentialRecord] {
        try await executor.rows(StoreQueries.consoleCredentials).map(ConsoleCredentialRecord.init(row:))
    }

    func updateConsoleCredentialUse(id: [UInt8], signCount: UInt32, expectedSignCount: UInt32, at now: Date)
        async throws -> Bool
    {
        try await !executor.rows(
            StoreQueries.updateConsoleCredentialUse(
                id: id, signCount: signCount, expectedSignCount: expectedSignCount, at: now)
        ).isEmpty
    }

    func insertConsoleSession(_ session: ConsoleSessionRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertConsoleSession(session))
    }

    func consoleSession(hash: [UInt8], at now: Date, tokenEpoch: [UInt8]) async throws -> ConsoleSessionRecord? {
        try await executor.rows(StoreQueries.consoleSession(hash: hash, at: now, tokenEpoch: tokenEpoch)).first.map(
            ConsoleSessionRecord.init(row:))
    }

    func deleteConsoleSession(hash: [UInt8]) async throws -> Bool {
        try await !executor.rows(StoreQueries.deleteConsoleSession(hash: hash)).isEmpty
    }

    func recentUsers(applicationID: UUID, limit: Int) async throws -> [UserRecord] {
        try await executor.rows(StoreQueries.recentUsers(applicationID: applicationID, limit: limit)).map {
            try UserRecord(row: $0)
        }
    }
}
