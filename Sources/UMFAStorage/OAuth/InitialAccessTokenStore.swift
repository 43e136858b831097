import Foundation

/// An initial access token (RFC 7591 §3) the admin issued for dynamic client registration:
/// kept by its SHA-256, good for `usesLeft` registrations until it expires.
public struct InitialAccessTokenRecord: Sendable, Equatable {
    /// SHA-256 of the token.
    public var tokenHash: [UInt8]
    /// The application (issuer) whose registration endpoint accepts it.
    public var applicationID: UUID
    /// How many more clients it may register.
    public var usesLeft: Int
    /// When it stops working.
    public var expiresAt: Date
    /// When it was issued.
    public var createdAt: Date

    /// Creates a record.
    public init(tokenHash: [UInt8], applicationID: UUID, usesLeft: Int, expiresAt: Date, createdAt: Date) {
        self.tokenHash = tokenHash
        self.applicationID = applicationID
        self.usesLeft = usesLeft
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}

/// Initial access tokens, shared by every instance on the database.
public protocol InitialAccessTokenStore: Sendable {
    /// Adds a token.
    func insertInitialAccessToken(_ token: InitialAccessTokenRecord) async throws
    /// Takes one use of a live token in one statement: `true` when it had a use left and had not
    /// expired at `now`. Of concurrent callers on any instance, no more than its uses succeed.
    func spendInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws -> Bool
}

extension StoreQueries {
    static func insertInitialAccessToken(_ token: InitialAccessTokenRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO initial_access_tokens (token_hash, application_id, uses_left, expires_at, created_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .bytes(token.tokenHash), .uuid(token.applicationID), .integer(Int64(token.usesLeft)),
                .date(token.expiresAt), .date(token.createdAt),
            ])
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

    func spendInitialAccessToken(hash: [UInt8], applicationID: UUID, at now: Date) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.spendInitialAccessToken(hash: hash, applicationID: applicationID, at: now)
        )
        .isEmpty
    }
}
