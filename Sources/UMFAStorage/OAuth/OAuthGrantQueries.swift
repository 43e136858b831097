import Foundation

/// The statements behind ``OAuthGrantStore``, for both engines.
extension StoreQueries {
    static let oauthGrantColumns =
        "kind, handle_hash, application_id, family, subject, payload, created_at, expires_at, consumed_at, credential_id"

    static func insertOAuthGrant(_ grant: OAuthGrantRecord) -> StoreQuery {
        StoreQuery(
            "INSERT INTO oauth_grants (\(oauthGrantColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(grant.kind.rawValue), .bytes(grant.handleHash), .uuid(grant.applicationID),
                grant.family.map { .text($0) } ?? .null, grant.subject.map { .text($0) } ?? .null,
                .bytes(grant.payload), .date(grant.createdAt), .date(grant.expiresAt),
                grant.consumedAt.map { .date($0) } ?? .null, grant.credentialID.map { .bytes($0) } ?? .null,
            ])
    }

    static func oauthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) -> StoreQuery {
        StoreQuery(
            "SELECT \(oauthGrantColumns) FROM oauth_grants WHERE kind = ? AND handle_hash = ? AND application_id = ?",
            [.text(kind.rawValue), .bytes(handleHash), .uuid(applicationID)])
    }

    /// One statement: of concurrent consumers exactly one sees the row come back.
    static func consumeOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, at now: Date)
        -> StoreQuery
    {
        StoreQuery(
            """
            UPDATE oauth_grants SET consumed_at = ?
            WHERE kind = ? AND handle_hash = ? AND application_id = ? AND consumed_at IS NULL AND expires_at > ?
            RETURNING \(oauthGrantColumns),
                CASE WHEN EXISTS (SELECT 1 FROM revoked_access_tokens
                    WHERE revoked_access_tokens.jti = oauth_grants.family
                    AND revoked_access_tokens.application_id = oauth_grants.application_id) THEN 1 ELSE 0 END
                AS family_revoked
            """,
            [.date(now), .text(kind.rawValue), .bytes(handleHash), .uuid(applicationID), .date(now)])
    }

    static func updateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, payload: [UInt8], subject: String?,
        expiresAt: Date, now: Date
    ) -> StoreQuery {
        StoreQuery(
            """
            UPDATE oauth_grants SET payload = ?, subject = ?, expires_at = ?
            WHERE kind = ? AND handle_hash = ? AND application_id = ? AND consumed_at IS NULL AND expires_at > ?
            RETURNING kind
            """,
            [
                .bytes(payload), subject.map { .text($0) } ?? .null, .date(expiresAt), .text(kind.rawValue),
                .bytes(handleHash), .uuid(applicationID), .date(now),
            ])
    }

    static func revokeOAuthGrantFamily(applicationID: UUID, family: String, at now: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE oauth_grants SET consumed_at = ?
            WHERE application_id = ? AND family = ? AND consumed_at IS NULL RETURNING kind
            """,
            [.date(now), .uuid(applicationID), .text(family)])
    }

    static func deleteOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) -> StoreQuery {
        StoreQuery(
            "DELETE FROM oauth_grants WHERE kind = ? AND handle_hash = ? AND application_id = ? RETURNING kind",
            [.text(kind.rawValue), .bytes(handleHash), .uuid(applicationID)])
    }
}

extension OAuthGrantRecord {
    init(row: any StoredRow) throws {
        let kind = try row.text("kind")
        guard let parsed = OAuthGrantKind(rawValue: kind) else {
            throw StoreError(.corrupt, "unknown OAuth grant kind \(kind)")
        }
        self.init(
            kind: parsed, handleHash: try row.bytes("handle_hash"), applicationID: try row.uuid("application_id"),
            family: row.optionalText("family"), subject: row.optionalText("subject"), payload: try row.bytes("payload"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            consumedAt: row.optionalDate("consumed_at"),
            credentialID: try row.optionalText("credential_id").map(StoredValue.bytes))
    }
}

extension SQLStore {
    func insertOAuthGrant(_ grant: OAuthGrantRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertOAuthGrant(grant))
    }

    func oauthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) async throws -> OAuthGrantRecord? {
        try await executor.rows(
            StoreQueries.oauthGrant(kind: kind, handleHash: handleHash, applicationID: applicationID)
        ).first.map { try OAuthGrantRecord(row: $0) }
    }

    func consumeOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, at now: Date)
        async throws -> (record: OAuthGrantRecord, familyRevoked: Bool)?
    {
        let query = StoreQueries.consumeOAuthGrant(
            kind: kind, handleHash: handleHash, applicationID: applicationID, at: now)
        guard let row = try await executor.rows(query).first else { return nil }
        var record = try OAuthGrantRecord(row: row)
        record.consumedAt = nil
        return (record, try row.bool("family_revoked"))
    }

    func updateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, payload: [UInt8], subject: String?,
        expiresAt: Date, now: Date
    ) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.updateOAuthGrant(
                kind: kind, handleHash: handleHash, applicationID: applicationID, payload: payload, subject: subject,
                expiresAt: expiresAt, now: now)
        ).isEmpty
    }

    func revokeOAuthGrantFamily(applicationID: UUID, family: String, at now: Date) async throws -> Int {
        try await executor.rows(
            StoreQueries.revokeOAuthGrantFamily(applicationID: applicationID, family: family, at: now)
        )
        .count
    }

    func deleteOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.deleteOAuthGrant(kind: kind, handleHash: handleHash, applicationID: applicationID)
        ).isEmpty
    }
}
