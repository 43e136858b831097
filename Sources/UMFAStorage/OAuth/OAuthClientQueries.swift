import Foundation

/// The statements behind ``OAuthClientStore``, for both engines.
extension StoreQueries {
    static let oauthClientColumns = """
        client_id, application_id, client_name, secret_hash, redirect_uris, grant_types, response_types,
            auth_method, scopes, post_logout_redirect_uris, first_party, access_token_ttl_seconds,
            refresh_token_ttl_seconds, created_at, require_par, dpop_bound, jwks, sealed_secret, dcr_template,
            software_id, registration_token_hash, attestation_required, tls_client_auth_subject, tls_bound
        """

    static func oauthClientValues(_ client: OAuthClientRecord) -> [StoreQuery.Value] {
        [
            .text(client.clientID), .uuid(client.applicationID), .text(client.name),
            client.secretHash.map { .bytes($0) } ?? .null, .text(StoredValue.json(client.redirectURIs)),
            .text(StoredValue.json(client.grantTypes)), .text(StoredValue.json(client.responseTypes)),
            .text(client.authenticationMethod.rawValue), .text(StoredValue.json(client.scopes)),
            .text(StoredValue.json(client.postLogoutRedirectURIs)), .bool(client.firstParty),
            .integer(Int64(client.accessTokenTTLSeconds)), .integer(Int64(client.refreshTokenTTLSeconds)),
            .date(client.createdAt), .bool(client.requirePushedAuthorizationRequests),
            .bool(client.dpopBoundAccessTokens), client.jwks.map { .text($0) } ?? .null,
            client.sealedSecret.map { .bytes($0) } ?? .null, .bool(client.dcrTemplate),
            client.softwareID.map { .text($0) } ?? .null, client.registrationTokenHash.map { .bytes($0) } ?? .null,
            .bool(client.attestationRequired), client.tlsClientAuthSubject.map { .text($0.storedText) } ?? .null,
            .bool(client.tlsCertificateBoundAccessTokens),
        ]
    }

    static func insertOAuthClient(_ client: OAuthClientRecord) -> StoreQuery {
        StoreQuery(
            "INSERT INTO oauth_clients (\(oauthClientColumns)) VALUES (\(Array(repeating: "?", count: 24).joined(separator: ", ")))",
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
        return StoreQuery(
            """
            SELECT applications.*, \(clientColumns.joined(separator: ", ")) FROM applications
            LEFT JOIN oauth_clients ON oauth_clients.application_id = applications.id AND oauth_clients.client_id = ?
            WHERE applications.id = ?
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
            UPDATE oauth_clients SET client_name = ?, secret_hash = ?, redirect_uris = ?, grant_types = ?,
                response_types = ?, auth_method = ?, scopes = ?, post_logout_redirect_uris = ?, first_party = ?,
                access_token_ttl_seconds = ?, refresh_token_ttl_seconds = ?, require_par = ?, dpop_bound = ?,
                jwks = ?, sealed_secret = ?, dcr_template = ?, software_id = ?, registration_token_hash = ?,
                attestation_required = ?, tls_client_auth_subject = ?, tls_bound = ?
            WHERE application_id = ? AND client_id = ?\(condition) RETURNING client_id
            """,
            Array(oauthClientValues(client)[2..<13]) + Array(oauthClientValues(client)[14...]) + [
                .uuid(client.applicationID), .text(client.clientID),
            ] + (presentedToken.map { [.bytes($0)] } ?? []))
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
        let method = try row.text("auth_method")
        guard let authenticationMethod = ClientAuthenticationMethod(rawValue: method) else {
            throw StoreError(.corrupt, "unknown token_endpoint_auth_method \(method)")
        }
        self.init(
            clientID: try row.text("client_id"), applicationID: try row.uuid("application_id"),
            name: try row.text("client_name"), secretHash: try row.optionalText("secret_hash").map(StoredValue.bytes),
            redirectURIs: try StoredValue.list(try row.text("redirect_uris")),
            grantTypes: try StoredValue.list(try row.text("grant_types")),
            responseTypes: try StoredValue.list(try row.text("response_types")),
            authenticationMethod: authenticationMethod, scopes: try StoredValue.list(try row.text("scopes")),
            postLogoutRedirectURIs: try StoredValue.list(try row.text("post_logout_redirect_uris")),
            firstParty: try row.bool("first_party"),
            accessTokenTTLSeconds: Int(try row.integer("access_token_ttl_seconds")),
            refreshTokenTTLSeconds: Int(try row.integer("refresh_token_ttl_seconds")),
            createdAt: try row.date("created_at"),
            requirePushedAuthorizationRequests: (row.optionalInteger("require_par") ?? 0) != 0,
            dpopBoundAccessTokens: (row.optionalInteger("dpop_bound") ?? 0) != 0, jwks: row.optionalText("jwks"),
            sealedSecret: try row.optionalText("sealed_secret").map(StoredValue.bytes),
            dcrTemplate: (row.optionalInteger("dcr_template") ?? 0) != 0, softwareID: row.optionalText("software_id"),
            registrationTokenHash: try row.optionalText("registration_token_hash").map(StoredValue.bytes),
            attestationRequired: (row.optionalInteger("attestation_required") ?? 0) != 0)
        if let subject = row.optionalText("tls_client_auth_subject") {
            guard let parsed = TLSClientAuthSubject(storedText: subject) else {
                throw StoreError(.corrupt, "unreadable tls_client_auth_subject")
            }
            tlsClientAuthSubject = parsed
        }
        tlsCertificateBoundAccessTokens = (row.optionalInteger("tls_bound") ?? 0) != 0
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
