import Foundation

/// What ``OAuthGrantStore/rotateOAuthGrant(kind:handleHash:applicationID:successorHash:at:)``
/// did: the grant it consumed, whether it stored the successor, and what it read beside them.
package struct OAuthGrantRotation: Sendable, Equatable {
    /// The consumed grant as it was (``OAuthGrantRecord/consumedAt`` `nil`).
    package var record: OAuthGrantRecord
    /// Whether the grant's family had been revoked when it was consumed (as
    /// ``OAuthGrantStore/consumeOAuthGrant(kind:handleHash:applicationID:at:)`` reports it); the
    /// successor is then not stored.
    package var familyRevoked: Bool
    /// Whether the successor was stored.
    package var successorStored: Bool
    /// The user the grant's passkey (``OAuthGrantRecord/credentialID``) is registered to now;
    /// `nil` when the grant names none or the passkey is no longer registered.
    package var credentialOwner: String?
    /// The profile of the grant's ``OAuthGrantRecord/subject``; `nil` when it has none.
    package var subjectProfile: UserProfileRecord?

    /// Creates a rotation's result.
    package init(
        record: OAuthGrantRecord, familyRevoked: Bool, successorStored: Bool, credentialOwner: String?,
        subjectProfile: UserProfileRecord?
    ) {
        self.record = record
        self.familyRevoked = familyRevoked
        self.successorStored = successorStored
        self.credentialOwner = credentialOwner
        self.subjectProfile = subjectProfile
    }
}

/// The statements behind ``OAuthGrantStore/rotateOAuthGrant(kind:handleHash:applicationID:successorHash:at:)``:
/// one data-modifying statement on PostgreSQL, the shared ones in turn on SQLite.
extension StoreQueries {
    /// The prefix of the profile's columns in a rotation's row (read with ``PrefixedRow``).
    static let rotationProfilePrefix = "p_"

    private static let userProfileColumns = [
        "application_id", "user_id", "email", "email_key", "email_verified", "given_name", "family_name",
        "phone_number", "phone_number_verified", "updated_at",
    ]

    /// What a rotation reads beside the grant `g`: its passkey's owner and its subject's profile,
    /// each joined on its key, so each is there or NULL.
    private static let rotationReads = (
        columns: "k.user_id AS credential_owner, "
            + userProfileColumns.map { "p.\($0) AS \(rotationProfilePrefix)\($0)" }.joined(separator: ", "),
        joins: """
        LEFT JOIN credentials k ON k.application_id = g.application_id AND k.credential_id = g.credential_id
        LEFT JOIN user_profiles p ON p.application_id = g.application_id AND p.user_id = g.subject
        """
    )

    /// Stores a copy of the grant of `handleHash` under `successorHash` unless its family was
    /// revoked: the successor's columns read from `source`.
    private static func successorInsert(source: String, successorHash: [UInt8], at now: Date)
        -> (sql: String, values: [StoreQuery.Value])
    {
        (
            """
            INSERT INTO oauth_grants (\(oauthGrantColumns))
            SELECT kind, ?, application_id, family, subject, payload, ?, expires_at, NULL, credential_id
            FROM \(source)
            """,
            [.bytes(successorHash), .date(now)]
        )
    }

    /// PostgreSQL: consumes the grant, stores its successor only when the consume returned a
    /// row of a family not revoked (each part reads the one before through its `RETURNING`
    /// rows), and reads the grant's passkey owner and subject's profile, in one statement. The
    /// row lock of the `UPDATE` makes concurrent rotations wait: the second finds the grant
    /// consumed and stores nothing. No row when nothing was consumed.
    static func rotateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, successorHash: [UInt8], at now: Date
    ) -> StoreQuery {
        let consume = consumeOAuthGrant(kind: kind, handleHash: handleHash, applicationID: applicationID, at: now)
        let insert = successorInsert(source: "consumed WHERE family_revoked = 0", successorHash: successorHash, at: now)
        return StoreQuery(
            """
            WITH consumed AS (\(consume.sql)),
            successor AS (\(insert.sql) RETURNING handle_hash)
            SELECT g.*, (SELECT count(*) FROM successor) AS successor_stored, \(rotationReads.columns)
            FROM consumed g \(rotationReads.joins)
            """,
            consume.values + insert.values)
    }

    /// SQLite's second step, after ``consumeOAuthGrant(kind:handleHash:applicationID:at:)``
    /// returned the grant: the successor, unless the family was revoked.
    static func insertOAuthGrantSuccessor(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, successorHash: [UInt8], at now: Date
    ) -> StoreQuery {
        let insert = successorInsert(
            source: """
                oauth_grants WHERE kind = ? AND handle_hash = ? AND application_id = ?
                AND NOT EXISTS (SELECT 1 FROM revoked_access_tokens
                    WHERE revoked_access_tokens.jti = oauth_grants.family
                    AND revoked_access_tokens.application_id = oauth_grants.application_id)
                """, successorHash: successorHash, at: now)
        return StoreQuery(
            insert.sql + " RETURNING handle_hash",
            insert.values + [.text(kind.rawValue), .bytes(handleHash), .uuid(applicationID)])
    }

    /// SQLite's third step: what a rotation reads beside the grant.
    static func oauthGrantRotationReads(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID)
        -> StoreQuery
    {
        StoreQuery(
            """
            SELECT \(rotationReads.columns) FROM oauth_grants g \(rotationReads.joins)
            WHERE g.kind = ? AND g.handle_hash = ? AND g.application_id = ?
            """,
            [.text(kind.rawValue), .bytes(handleHash), .uuid(applicationID)])
    }
}

extension SQLStore {
    func rotateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, successorHash: [UInt8], at now: Date
    ) async throws -> OAuthGrantRotation? {
        guard executor.dialect == .postgresql else {
            // SQLite: the three statements in turn, on the caller's thread. A transaction runs on
            // the connection's own thread, and the hop cost a refresh about a third of its CPU
            // (scripts/bench.sh --cpu). The consume is the single-use gate; a stop between the
            // statements leaves a consumed grant without its successor, and its holder signs in
            // again.
            let consume = StoreQueries.consumeOAuthGrant(
                kind: kind, handleHash: handleHash, applicationID: applicationID, at: now)
            guard let consumed = try await executor.rows(consume).first else { return nil }
            let successor = try await executor.rows(
                StoreQueries.insertOAuthGrantSuccessor(
                    kind: kind, handleHash: handleHash, applicationID: applicationID, successorHash: successorHash,
                    at: now))
            let reads = StoreQueries.oauthGrantRotationReads(
                kind: kind, handleHash: handleHash, applicationID: applicationID)
            guard let read = try await executor.rows(reads).first else { return nil }
            return try Self.rotation(consumed: consumed, successorStored: !successor.isEmpty, reads: read)
        }
        let query = StoreQueries.rotateOAuthGrant(
            kind: kind, handleHash: handleHash, applicationID: applicationID, successorHash: successorHash, at: now)
        guard let row = try await executor.rows(query).first else { return nil }
        return try Self.rotation(consumed: row, successorStored: try row.integer("successor_stored") > 0, reads: row)
    }

    /// A rotation's result from the consumed grant's row and the row of what was read beside it.
    private static func rotation(consumed: any StoredRow, successorStored: Bool, reads: any StoredRow) throws
        -> OAuthGrantRotation
    {
        var record = try OAuthGrantRecord(row: consumed)
        record.consumedAt = nil
        let profile = PrefixedRow(base: reads, prefix: StoreQueries.rotationProfilePrefix)
        return OAuthGrantRotation(
            record: record, familyRevoked: try consumed.bool("family_revoked"), successorStored: successorStored,
            credentialOwner: reads.optionalText("credential_owner"),
            subjectProfile: try profile.optionalText("user_id").map { _ in try UserProfileRecord(row: profile) })
    }
}
