import Foundation

/// What a signed-in user manages themselves (docs/contract.md §8): their credentials' names, and their
/// recovery codes, kept as one set of SHA-256 hashes per user so that replacing the set and
/// spending a code are each one statement, on any instance.
package protocol SelfServiceStore: Sendable {
    /// Sets a credential's name; the credential as stored now, or `nil` when the user has no such
    /// credential.
    func renameCredential(applicationID: UUID, userID: String, credentialID: [UInt8], name: String?) async throws
        -> StoredCredential?
    /// Removes a credential unless it is the user's last one; `false` when nothing was removed
    /// (no such credential, or the last).
    func deleteCredentialKeepingLast(applicationID: UUID, userID: String, credentialID: [UInt8]) async throws -> Bool
    /// Replaces the user's recovery codes with `hashes`.
    func setRecoveryCodes(applicationID: UUID, userID: String, hashes: [[UInt8]], at now: Date) async throws
    /// The hashes of the user's unused recovery codes (empty when there are none).
    func recoveryCodes(applicationID: UUID, userID: String) async throws -> [[UInt8]]
    /// Replaces the set `expected` by `remaining` only if it is still `expected`: of concurrent
    /// spenders of one code exactly one succeeds.
    func spendRecoveryCode(applicationID: UUID, userID: String, expected: [[UInt8]], remaining: [[UInt8]], at now: Date)
        async throws -> Bool
}

extension StoreQueries {
    static func renameCredential(applicationID: UUID, userID: String, credentialID: [UInt8], name: String?)
        -> StoreQuery
    {
        StoreQuery(
            """
            UPDATE credentials SET device_name = ?
            WHERE application_id = ? AND user_id = ? AND credential_id = ? RETURNING *
            """,
            [name.map { .text($0) } ?? .null, .uuid(applicationID), .text(userID), .bytes(credentialID)])
    }

    static func deleteCredentialKeepingLast(applicationID: UUID, userID: String, credentialID: [UInt8])
        -> StoreQuery
    {
        StoreQuery(
            """
            DELETE FROM credentials WHERE application_id = ? AND user_id = ? AND credential_id = ?
                AND (SELECT COUNT(*) FROM credentials WHERE application_id = ? AND user_id = ?) > 1
            RETURNING credential_id
            """,
            [.uuid(applicationID), .text(userID), .bytes(credentialID), .uuid(applicationID), .text(userID)])
    }

    static func codeList(_ hashes: [[UInt8]]) -> StoreQuery.Value {
        .text(StoredValue.json(hashes.map(StoredValue.text)))
    }

    static func setRecoveryCodes(applicationID: UUID, userID: String, hashes: [[UInt8]], at now: Date) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO recovery_codes (application_id, user_id, code_hashes, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (application_id, user_id) DO UPDATE SET code_hashes = excluded.code_hashes,
                updated_at = excluded.updated_at
            """,
            [.uuid(applicationID), .text(userID), codeList(hashes), .date(now)])
    }

    static func recoveryCodes(applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "SELECT code_hashes FROM recovery_codes WHERE application_id = ? AND user_id = ?",
            [.uuid(applicationID), .text(userID)])
    }

    static func spendRecoveryCode(
        applicationID: UUID, userID: String, expected: [[UInt8]], remaining: [[UInt8]], at now: Date
    ) -> StoreQuery {
        StoreQuery(
            """
            UPDATE recovery_codes SET code_hashes = ?, updated_at = ?
            WHERE application_id = ? AND user_id = ? AND code_hashes = ? RETURNING user_id
            """,
            [codeList(remaining), .date(now), .uuid(applicationID), .text(userID), codeList(expected)])
    }
}

extension SQLStore {
    func renameCredential(applicationID: UUID, userID: String, credentialID: [UInt8], name: String?) async throws
        -> StoredCredential?
    {
        try await executor.rows(
            StoreQueries.renameCredential(
                applicationID: applicationID, userID: userID, credentialID: credentialID, name: name)
        ).first.map { try StoredCredential(row: $0) }
    }

    func deleteCredentialKeepingLast(applicationID: UUID, userID: String, credentialID: [UInt8]) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.deleteCredentialKeepingLast(
                applicationID: applicationID, userID: userID, credentialID: credentialID)
        ).isEmpty
    }

    func setRecoveryCodes(applicationID: UUID, userID: String, hashes: [[UInt8]], at now: Date) async throws {
        _ = try await executor.rows(
            StoreQueries.setRecoveryCodes(applicationID: applicationID, userID: userID, hashes: hashes, at: now))
    }

    func recoveryCodes(applicationID: UUID, userID: String) async throws -> [[UInt8]] {
        guard
            let row = try await executor.rows(StoreQueries.recoveryCodes(applicationID: applicationID, userID: userID))
                .first
        else { return [] }
        return try StoredValue.list(try row.text("code_hashes")).map(StoredValue.bytes)
    }

    func spendRecoveryCode(applicationID: UUID, userID: String, expected: [[UInt8]], remaining: [[UInt8]], at now: Date)
        async throws -> Bool
    {
        try await !executor.rows(
            StoreQueries.spendRecoveryCode(
                applicationID: applicationID, userID: userID, expected: expected, remaining: remaining, at: now)
        ).isEmpty
    }
}
