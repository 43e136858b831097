import Foundation
import UMFAContract

/// The statements behind ``OAuthClientStore``, for both engines.
extension StoreQueries {
    static let oauthClientColumns = """
        client_id, application_id, created_at, secret_hash, sealed_secret, registration_token_hash, settings,
            settings_version
        """

    /// The version of the settings document ``OAuthClientRecord/settings`` is stored as: the
    /// members of ``ClientMetadata`` (RFC 7591 §2 and UMFA's own) by their wire names.
    static let clientSettingsVersion: Int64 = 1

    static func oauthClientValues(_ client: OAuthClientRecord) -> [StoreQuery.Value] {
        [
            .text(client.clientID), .uuid(client.applicationID), .date(client.createdAt),
            client.secretHash.map { .bytes($0) } ?? .null, client.sealedSecret.map { .bytes($0) } ?? .null,
            client.registrationTokenHash.map { .bytes($0) } ?? .null,
            .text(StoredValue.json(encoding: client.settings)), .integer(clientSettingsVersion),
        ]
    }

    static func insertOAuthClient(_ client: OAuthClientRecord) -> StoreQuery {
        StoreQuery(
            "INSERT INTO oauth_clients (\(oauthClientColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            oauthClientValues(client))
    }

    static func oauthClient(applicationID: UUID, clientID: String) -> StoreQuery {
        StoreQuery(
            "SELECT \(oauthClientColumns) FROM oauth_clients WHERE application_id = ? AND client_id = ?",
            [.uuid(applicationID), .text(clientID)])
    }

    /// The prefix of the client's columns beside the application's in
    /// ``applicationWithOAuthClient(_:clientID:)``: both tables have `created_at`.
    static let joinedClientPrefix = "joined_client_"

    /// The application's row, with its client's columns (prefixed, `NULL` when there is no such
    /// client) beside it.
    static func applicationWithOAuthClient(_ id: UUID, clientID: String) -> StoreQuery {
        let clientColumns = oauthClientColumns.split(separator: ",").map {
            let name = $0.trimmingCharacters(in: .whitespacesAndNewlines)
            return "oauth_clients.\(name) AS \(joinedClientPrefix)\(name)"
        }
        let key = ApplicationRecord.ColumnName.id
        return StoreQuery(
            """
            SELECT applications.*, \(clientColumns.joined(separator: ", ")) FROM applications
            LEFT JOIN oauth_clients ON oauth_clients.application_id = applications.\(key)
                AND oauth_clients.client_id = ?
            WHERE applications.\(key) = ?
            """,
            [.text(clientID), .uuid(id)])
    }

    static func oauthClients(applicationID: UUID) -> StoreQuery {
        StoreQuery(
            "SELECT \(oauthClientColumns) FROM oauth_clients WHERE application_id = ?", [.uuid(applicationID)])
    }

    static func updateOAuthClient(_ client: OAuthClientRecord, presentedToken: [UInt8]? = nil) -> StoreQuery {
        let condition = presentedToken == nil ? "" : " AND registration_token_hash = ?"
        return StoreQuery(
            """
            UPDATE oauth_clients SET secret_hash = ?, sealed_secret = ?, registration_token_hash = ?, settings = ?,
                settings_version = ?
            WHERE application_id = ? AND client_id = ?\(condition) RETURNING client_id
            """,
            Array(oauthClientValues(client)[3...]) + [.uuid(client.applicationID), .text(client.clientID)]
                + (presentedToken.map { [.bytes($0)] } ?? []))
    }

    static func replaceRegistrationToken(applicationID: UUID, clientID: String, current: [UInt8], new: [UInt8])
        -> StoreQuery
    {
        StoreQuery(
            """
            UPDATE oauth_clients SET registration_token_hash = ?
            WHERE application_id = ? AND client_id = ? AND registration_token_hash = ? RETURNING client_id
            """,
            [.bytes(new), .uuid(applicationID), .text(clientID), .bytes(current)])
    }

    static func deleteOAuthClient(applicationID: UUID, clientID: String) -> StoreQuery {
        StoreQuery(
            "DELETE FROM oauth_clients WHERE application_id = ? AND client_id = ? RETURNING client_id",
            [.uuid(applicationID), .text(clientID)])
    }

    static func revokeAccessToken(jti: String, applicationID: UUID, expiresAt: Date) -> StoreQuery {
        StoreQuery(
            "INSERT INTO revoked_access_tokens (jti, application_id, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [.text(jti), .uuid(applicationID), .date(expiresAt)])
    }

    static func revokedAccessTokens(jtis: [String], applicationID: UUID) -> StoreQuery {
        let placeholders = Array(repeating: "?", count: jtis.count).joined(separator: ", ")
        return StoreQuery(
            "SELECT jti FROM revoked_access_tokens WHERE application_id = ? AND jti IN (\(placeholders)) LIMIT 1",
            [.uuid(applicationID)] + jtis.map { .text($0) })
    }
}

extension OAuthClientRecord {
    init(row: any StoredRow) throws {
        let version = try row.integer("settings_version")
        guard version == StoreQueries.clientSettingsVersion else {
            throw StoreError(.corrupt, "client settings document of version \(version), this server reads 1")
        }
        self.init(
            clientID: try row.text("client_id"), applicationID: try row.uuid("application_id"),
            createdAt: try row.date("created_at"),
            settings: try StoredValue.decoded(ClientMetadata.self, from: try row.text("settings")),
            secretHash: try row.optionalText("secret_hash").map(StoredValue.bytes),
            sealedSecret: try row.optionalText("sealed_secret").map(StoredValue.bytes),
            registrationTokenHash: try row.optionalText("registration_token_hash").map(StoredValue.bytes))
    }
}

extension SQLStore {
    func insertOAuthClient(_ client: OAuthClientRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertOAuthClient(client))
    }

    func oauthClient(applicationID: UUID, clientID: String) async throws -> OAuthClientRecord? {
        try await executor.rows(StoreQueries.oauthClient(applicationID: applicationID, clientID: clientID)).first
            .map { try OAuthClientRecord(row: $0) }
    }

    func application(id: UUID, withOAuthClient clientID: String) async throws
        -> (application: ApplicationRecord, client: OAuthClientRecord?)?
    {
        let query = StoreQueries.applicationWithOAuthClient(id, clientID: clientID)
        guard let row = try await executor.rows(query).first else { return nil }
        let clientRow = PrefixedRow(base: row, prefix: StoreQueries.joinedClientPrefix)
        return (
            try ApplicationRecord(row: row),
            clientRow.optionalText("client_id") == nil ? nil : try OAuthClientRecord(row: clientRow)
        )
    }

    func oauthClients(applicationID: UUID) async throws -> [OAuthClientRecord] {
        // Sorted here: PostgreSQL orders text by collation, SQLite by bytes.
        try await executor.rows(StoreQueries.oauthClients(applicationID: applicationID)).map {
            try OAuthClientRecord(row: $0)
        }.sorted {
            $0.createdAt != $1.createdAt
                ? $0.createdAt < $1.createdAt : $0.clientID.utf8.lexicographicallyPrecedes($1.clientID.utf8)
        }
    }

    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool {
        try await !executor.rows(StoreQueries.updateOAuthClient(client)).isEmpty
    }

    func updateRegisteredClient(_ client: OAuthClientRecord, presentedToken: [UInt8]) async throws -> Bool {
        try await !executor.rows(StoreQueries.updateOAuthClient(client, presentedToken: presentedToken)).isEmpty
    }

    func replaceRegistrationToken(applicationID: UUID, clientID: String, current: [UInt8], new: [UInt8])
        async throws -> Bool
    {
        try await !executor.rows(
            StoreQueries.replaceRegistrationToken(
                applicationID: applicationID, clientID: clientID, current: current, new: new)
        ).isEmpty
    }

    func deleteOAuthClient(applicationID: UUID, clientID: String) async throws -> Bool {
        try await !executor.rows(StoreQueries.deleteOAuthClient(applicationID: applicationID, clientID: clientID))
            .isEmpty
    }

    func revokeAccessToken(jti: String, applicationID: UUID, expiresAt: Date) async throws {
        _ = try await executor.rows(
            StoreQueries.revokeAccessToken(jti: jti, applicationID: applicationID, expiresAt: expiresAt))
    }

    func isAnyAccessTokenRevoked(jtis: [String], applicationID: UUID) async throws -> Bool {
        guard !jtis.isEmpty else { return false }
        return try await !executor.rows(StoreQueries.revokedAccessTokens(jtis: jtis, applicationID: applicationID))
            .isEmpty
    }
}
