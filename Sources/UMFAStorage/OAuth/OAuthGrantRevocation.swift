import Foundation

/// What ``OAuthGrantStore/revokeOAuthGrants(applicationID:subject:credentialID:at:markedUntil:)``
/// ended: the live SSO sessions, refresh-token families and authorization codes, and how many
/// families it marked revoked (those whose grants were all spent too, for their access tokens).
package struct OAuthGrantRevocation: Sendable, Equatable {
    /// Live SSO sessions ended.
    package var sessions: Int
    /// Refresh-token families whose live refresh token was ended.
    package var refreshFamilies: Int
    /// Live authorization codes ended.
    package var codes: Int
    /// Families newly marked revoked.
    package var familiesMarked: Int

    /// Creates a summary.
    package init(sessions: Int = 0, refreshFamilies: Int = 0, codes: Int = 0, familiesMarked: Int = 0) {
        self.sessions = sessions
        self.refreshFamilies = refreshFamilies
        self.codes = codes
        self.familiesMarked = familiesMarked
    }
}

extension StoreQueries {
    /// The grants of a user, or of the sign-ins of one of their passkeys. Sign-ins stored before
    /// the passkey was recorded with them (schema 11) have no `credential_id`: any of the user's
    /// passkeys may have made them, so deleting any one ends them too.
    static func ownerCondition(applicationID: UUID, subject: String, credentialID: [UInt8]?)
        -> (sql: String, values: [StoreQuery.Value])
    {
        var sql = "application_id = ? AND subject = ?"
        var values: [StoreQuery.Value] = [.uuid(applicationID), .text(subject)]
        if let credentialID {
            let signIns = [OAuthGrantKind.session, .authorizationCode, .refreshToken]
                .map { "'\($0.rawValue)'" }.joined(separator: ", ")
            sql += " AND (credential_id = ? OR (credential_id IS NULL AND kind IN (\(signIns))))"
            values.append(.bytes(credentialID))
        }
        return (sql, values)
    }

    /// Marks every family of the owner's grants, spent or live, revoked: one row per family in
    /// `revoked_access_tokens`, as ``revokeAccessToken(jti:applicationID:expiresAt:)`` writes it.
    static func markOAuthGrantFamilies(
        applicationID: UUID, subject: String, credentialID: [UInt8]?, markedUntil: Date
    ) -> StoreQuery {
        let owner = ownerCondition(applicationID: applicationID, subject: subject, credentialID: credentialID)
        return StoreQuery(
            """
            INSERT INTO revoked_access_tokens (jti, application_id, expires_at)
            SELECT DISTINCT family, application_id, ? FROM oauth_grants
            WHERE \(owner.sql) AND family IS NOT NULL
            ON CONFLICT DO NOTHING RETURNING jti
            """,
            [.date(markedUntil)] + owner.values)
    }

    /// Consumes the owner's live grants; one row per grant ended, with its kind and family.
    static func consumeOAuthGrants(applicationID: UUID, subject: String, credentialID: [UInt8]?, at now: Date)
        -> StoreQuery
    {
        let owner = ownerCondition(applicationID: applicationID, subject: subject, credentialID: credentialID)
        return StoreQuery(
            "UPDATE oauth_grants SET consumed_at = ? WHERE \(owner.sql) AND consumed_at IS NULL RETURNING kind, family",
            [.date(now)] + owner.values)
    }
}

extension SQLStore {
    func revokeOAuthGrants(
        applicationID: UUID, subject: String, credentialID: [UInt8]?, at now: Date, markedUntil: Date
    ) async throws -> OAuthGrantRevocation {
        // The marks go in first: a refresh token issued into a marked family meanwhile, on any
        // instance, is consumed by the second statement or refused later by its family's mark.
        let marked = try await executor.rows(
            StoreQueries.markOAuthGrantFamilies(
                applicationID: applicationID, subject: subject, credentialID: credentialID, markedUntil: markedUntil))
        let ended = try await executor.rows(
            StoreQueries.consumeOAuthGrants(
                applicationID: applicationID, subject: subject, credentialID: credentialID, at: now))
        var revocation = OAuthGrantRevocation(familiesMarked: marked.count)
        var refreshFamilies: Set<String> = []
        for row in ended {
            switch OAuthGrantKind(rawValue: try row.text("kind")) {
            case .session: revocation.sessions += 1
            case .authorizationCode: revocation.codes += 1
            case .refreshToken: refreshFamilies.insert(row.optionalText("family") ?? "")
            default: break
            }
        }
        revocation.refreshFamilies = refreshFamilies.count
        return revocation
    }
}
