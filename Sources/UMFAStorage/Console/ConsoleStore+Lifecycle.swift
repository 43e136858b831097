import Foundation

/// Listing and ending the console's operator passkeys and sessions: one by one (the admin API),
/// or every one the admin token no longer vouches for (at start-up).
extension StoreQueries {
    static func consoleSessions(at now: Date) -> StoreQuery {
        StoreQuery(
            """
            SELECT s.* FROM console_sessions s JOIN console_credentials c ON c.credential_id = s.credential_id
            WHERE s.expires_at > ? ORDER BY s.created_at, s.session_hash
            """,
            [.date(now)])
    }

    static func deleteConsoleCredential(id: [UInt8]) -> StoreQuery {
        StoreQuery(
            "DELETE FROM console_credentials WHERE credential_id = ? RETURNING credential_id", [.bytes(id)])
    }

    static func deleteConsoleSessions(credentialID: [UInt8]) -> StoreQuery {
        StoreQuery(
            "DELETE FROM console_sessions WHERE credential_id = ? RETURNING session_hash", [.bytes(credentialID)])
    }

    static func deleteConsoleCredentials(exceptEpoch tokenEpoch: [UInt8]) -> StoreQuery {
        StoreQuery(
            """
            DELETE FROM console_credentials WHERE token_epoch IS NULL OR token_epoch <> ?
            RETURNING credential_id
            """,
            [.bytes(tokenEpoch)])
    }

    /// Sessions whose passkey is gone (just now, or removed while a sign-in was under way).
    static let deleteOrphanConsoleSessions = StoreQuery(
        """
        DELETE FROM console_sessions WHERE credential_id NOT IN (SELECT credential_id FROM console_credentials)
        RETURNING session_hash
        """)
}

extension SQLStore {
    func consoleSessions(at now: Date) async throws -> [ConsoleSessionRecord] {
        try await executor.rows(StoreQueries.consoleSessions(at: now)).map(ConsoleSessionRecord.init(row:))
    }

    func deleteConsoleCredential(id: [UInt8]) async throws -> Int? {
        // The passkey first: a sign-in racing this one may still add a session for it, which
        // finds no passkey at its next use and is swept with the next removal.
        guard try await !executor.rows(StoreQueries.deleteConsoleCredential(id: id)).isEmpty else { return nil }
        return try await executor.rows(StoreQueries.deleteConsoleSessions(credentialID: id)).count
    }

    func revokeConsoleCredentials(exceptEpoch tokenEpoch: [UInt8]) async throws -> (credentials: Int, sessions: Int) {
        let executor = executor
        return try await executor.underMigrationLock {
            let credentials = try await executor.rows(StoreQueries.deleteConsoleCredentials(exceptEpoch: tokenEpoch))
            let sessions = try await executor.rows(StoreQueries.deleteOrphanConsoleSessions)
            return (credentials.count, sessions.count)
        }
    }
}
