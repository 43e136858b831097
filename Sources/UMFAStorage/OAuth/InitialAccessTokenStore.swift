import Foundation

/// An initial access token (RFC 7591 §3) the admin issued for dynamic client registration:
/// kept by its SHA-256, good for `usesLeft` registrations until it expires.
package struct InitialAccessTokenRecord: Sendable, Equatable {
    /// SHA-256 of the token.
    package var tokenHash: [UInt8]
    /// The application (issuer) whose registration endpoint accepts it.
    package var applicationID: UUID
    /// How many more clients it may register.
    package var usesLeft: Int
    /// When it stops working.
    package var expiresAt: Date
    /// When it was issued.
    package var createdAt: Date
    /// The scopes a client registered with it may ask for; `nil`: the application's allowed scopes.
    package var scopes: [String]?

    /// Creates a record.
    package init(
        tokenHash: [UInt8], applicationID: UUID, usesLeft: Int, expiresAt: Date, createdAt: Date,
        scopes: [String]? = nil
    ) {
        self.scopes = scopes
        self.tokenHash = tokenHash
        self.applicationID = applicationID
        self.usesLeft = usesLeft
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}

/// Initial access tokens, shared by every instance on the database.
package protocol InitialAccessTokenStore: Sendable {
    /// Adds a token.
    func insertInitialAccessToken(_ token: InitialAccessTokenRecord) async throws
    /// The token with this hash when it is live at `now` (a use left, not expired), without
    /// spending a use: registration checks its bearer before it reads anything else.
    func liveInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws
        -> InitialAccessTokenRecord?
    /// Takes one use of a live token in one statement: `true` when it had a use left and had not
    /// expired at `now`. Of concurrent callers on any instance, no more than its uses succeed.
    func spendInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws -> Bool
}

extension StoreQueries {
    static func insertInitialAccessToken(_ token: InitialAccessTokenRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO initial_access_tokens (token_hash, application_id, uses_left, expires_at, created_at, scopes)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .bytes(token.tokenHash), .uuid(token.applicationID), .integer(Int64(token.usesLeft)),
                .date(token.expiresAt), .date(token.createdAt),
                token.scopes.map { .text(StoredValue.json($0)) } ?? .null,
            ])
    }

    static func liveInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) -> StoreQuery {
        StoreQuery(
            """
            SELECT * FROM initial_access_tokens
            WHERE token_hash = ? AND application_id = ? AND uses_left > 0 AND expires_at > ?
            """,
            [.bytes(hash), .uuid(applicationID), .date(now)])
    }

    static func spendInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE initial_access_tokens SET uses_left = uses_left - 1
            WHERE token_hash = ? AND application_id = ? AND uses_left > 0 AND expires_at > ?
            RETURNING uses_left
            """,
            [.bytes(hash), .uuid(applicationID), .date(now)])
    }
}

extension SQLStore {
    func insertInitialAccessToken(_ token: InitialAccessTokenRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertInitialAccessToken(token))
    }

    func liveInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws
        -> InitialAccessTokenRecord?
    {
        guard
            let row = try await executor.rows(
                StoreQueries.liveInitialAccessToken(hash: hash, applicationID: applicationID, at: now)
            ).first
        else { return nil }
        return InitialAccessTokenRecord(
            tokenHash: try row.bytes("token_hash"), applicationID: try row.uuid("application_id"),
            usesLeft: Int(try row.integer("uses_left")), expiresAt: try row.date("expires_at"),
            createdAt: try row.date("created_at"), scopes: try row.optionalText("scopes").map(StoredValue.list))
    }

    func spendInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.spendInitialAccessToken(hash: hash, applicationID: applicationID, at: now)
        )
        .isEmpty
    }
}
