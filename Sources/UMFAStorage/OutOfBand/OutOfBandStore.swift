import Foundation

/// What an out-of-band transaction does on the phone (docs/contract.md §7).
package enum OutOfBandOperation: String, Sendable, Codable {
    /// Register a passkey (`POST /api/umfa/users/enroll`).
    case registration
    /// Approve or deny with a passkey (`POST /api/umfa/approvals`).
    case authentication
}

/// Where an out-of-band transaction stands.
package enum OutOfBandStatus: String, Sendable, Codable {
    case pending, succeeded, denied, failed, expired
}

/// An out-of-band transaction, shared by every instance: started by the backend, finished on a
/// phone. Its status and dispatch tokens are kept as SHA-256; the login token it ends with is
/// sealed with the master key (the status call shows it to the backend).
package struct OutOfBandTransactionRecord: Sendable, Equatable {
    /// The transaction's id.
    package var transactionID: String
    /// The application.
    package var applicationID: UUID
    /// What the phone does.
    package var operation: OutOfBandOperation
    /// The user; `nil` for an approval whoever approves (usernameless, by QR code).
    package var userID: String?
    /// The username the enroll request gave (the status call shows it); `nil` for the user id.
    package var username: String?
    /// Where it stands.
    package var status: OutOfBandStatus
    /// SHA-256 of the status token.
    package var statusTokenHash: [UInt8]
    /// SHA-256 of the dispatch token.
    package var dispatchTokenHash: [UInt8]
    /// The dispatch token sealed with the master key, so a proven device can fetch it again.
    package var sealedDispatchToken: [UInt8]?
    /// When the dispatch token was redeemed (it works once).
    package var redeemedAt: Date?
    /// The message the user is shown (approvals).
    package var message: String?
    /// The random bytes bound into an approval's challenge (docs/contract.md §7).
    package var approvalNonce: [UInt8]?
    /// The number the other channel shows, when number matching is on.
    package var matchingNumber: String?
    /// The WebAuthn challenge the phone must answer, set at redemption.
    package var challenge: [UInt8]?
    /// The credential that finished it.
    package var credentialID: [UInt8]?
    /// The login token it ended with, sealed.
    package var sealedToken: [UInt8]?
    /// What an approval authorizes (RFC 9396 `authorization_details`, JSON).
    package var authorizationDetails: String?
    /// The assertion that decided an approval, with the decision and number it signed (JSON).
    package var evidence: String?
    /// Where a CIBA request in ping mode is told of the end (sealed with the master key).
    package var sealedPing: [UInt8]?
    /// When it was created (RFC 3339).
    package var createdAt: Date
    /// When it last changed (RFC 3339).
    package var updatedAt: Date
    /// When it expires.
    package var expiresAt: Date

    /// Creates a record.
    package init(
        transactionID: String, applicationID: UUID, operation: OutOfBandOperation, userID: String?,
        username: String? = nil, status: OutOfBandStatus = .pending, statusTokenHash: [UInt8],
        dispatchTokenHash: [UInt8], sealedDispatchToken: [UInt8]? = nil, redeemedAt: Date? = nil,
        message: String? = nil, approvalNonce: [UInt8]? = nil, matchingNumber: String? = nil,
        challenge: [UInt8]? = nil, credentialID: [UInt8]? = nil, sealedToken: [UInt8]? = nil,
        authorizationDetails: String? = nil, evidence: String? = nil, sealedPing: [UInt8]? = nil, createdAt: Date,
        updatedAt: Date, expiresAt: Date
    ) {
        self.transactionID = transactionID
        self.applicationID = applicationID
        self.operation = operation
        self.userID = userID
        self.username = username
        self.sealedDispatchToken = sealedDispatchToken
        self.status = status
        self.statusTokenHash = statusTokenHash
        self.dispatchTokenHash = dispatchTokenHash
        self.redeemedAt = redeemedAt
        self.message = message
        self.approvalNonce = approvalNonce
        self.matchingNumber = matchingNumber
        self.challenge = challenge
        self.credentialID = credentialID
        self.sealedToken = sealedToken
        self.authorizationDetails = authorizationDetails
        self.evidence = evidence
        self.sealedPing = sealedPing
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
    }
}

/// Out-of-band transactions; every change of status is one compare-and-set statement, so of
/// two phones (or instances) finishing one transaction only one does.
package protocol OutOfBandStore: Sendable {
    /// Adds a transaction.
    func insertOutOfBandTransaction(_ transaction: OutOfBandTransactionRecord) async throws
    /// The transaction a status token names.
    func outOfBandTransaction(statusTokenHash: [UInt8]) async throws -> OutOfBandTransactionRecord?
    /// A transaction by id.
    func outOfBandTransaction(id: String) async throws -> OutOfBandTransactionRecord?
    /// The transaction a dispatch token names (redeemed or not).
    func outOfBandTransaction(dispatchTokenHash: [UInt8]) async throws -> OutOfBandTransactionRecord?
    /// Spends a dispatch token: sets the challenge (and the user, for a usernameless approval)
    /// of a pending, unexpired, unredeemed transaction; the transaction as it is now, or `nil`.
    func redeemOutOfBandDispatch(tokenHash: [UInt8], challenge: [UInt8], at now: Date) async throws
        -> OutOfBandTransactionRecord?
    /// Moves a pending transaction to `status` with what it ended with (the login token, the
    /// evidence of its decision); `false` when it was no longer pending.
    func finishOutOfBandTransaction(
        id: String, status: OutOfBandStatus, userID: String?, credentialID: [UInt8]?, sealedToken: [UInt8]?,
        evidence: String?, at now: Date
    ) async throws -> Bool
    /// The pending, unexpired, unredeemed approvals for one user, oldest first.
    func pendingApprovals(applicationID: UUID, userID: String, at now: Date) async throws
        -> [OutOfBandTransactionRecord]
    /// Ends every pending transaction whose time is up as `expired`; the ones it ended.
    func expireOutOfBandTransactions(at now: Date) async throws -> [OutOfBandTransactionRecord]
}

extension StoreQueries {
    static func insertOutOfBandTransaction(_ t: OutOfBandTransactionRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO oob_transactions (transaction_id, application_id, operation, user_id, status,
                status_token_hash, dispatch_token_hash, redeemed_at, message, approval_nonce, matching_number,
                challenge, credential_id, sealed_token, created_at, updated_at, expires_at, username,
                sealed_dispatch_token, authorization_details, evidence, sealed_ping)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(t.transactionID), .uuid(t.applicationID), .text(t.operation.rawValue),
                t.userID.map { .text($0) } ?? .null, .text(t.status.rawValue), .bytes(t.statusTokenHash),
                .bytes(t.dispatchTokenHash), .optionalDate(t.redeemedAt), t.message.map { .text($0) } ?? .null,
                t.approvalNonce.map { .bytes($0) } ?? .null, t.matchingNumber.map { .text($0) } ?? .null,
                t.challenge.map { .bytes($0) } ?? .null, t.credentialID.map { .bytes($0) } ?? .null,
                t.sealedToken.map { .bytes($0) } ?? .null, .date(t.createdAt), .date(t.updatedAt), .date(t.expiresAt),
                t.username.map { .text($0) } ?? .null, t.sealedDispatchToken.map { .bytes($0) } ?? .null,
                t.authorizationDetails.map { .text($0) } ?? .null, t.evidence.map { .text($0) } ?? .null,
                t.sealedPing.map { .bytes($0) } ?? .null,
            ])
    }

    static func pendingApprovals(applicationID: UUID, userID: String, at now: Date) -> StoreQuery {
        StoreQuery(
            """
            SELECT * FROM oob_transactions
            WHERE application_id = ? AND user_id = ? AND status = 'pending' AND operation = 'authentication'
                AND redeemed_at IS NULL AND expires_at > ?
            ORDER BY created_at, transaction_id LIMIT 50
            """,
            [.uuid(applicationID), .text(userID), .date(now)])
    }

    static func expireOutOfBandTransactions(at now: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE oob_transactions SET status = 'expired', updated_at = ?, sealed_dispatch_token = NULL
            WHERE status = 'pending' AND expires_at <= ? RETURNING *
            """,
            [.date(now), .date(now)])
    }

    static func outOfBandTransaction(statusTokenHash: [UInt8]) -> StoreQuery {
        StoreQuery("SELECT * FROM oob_transactions WHERE status_token_hash = ?", [.bytes(statusTokenHash)])
    }

    static func outOfBandTransaction(dispatchTokenHash: [UInt8]) -> StoreQuery {
        StoreQuery("SELECT * FROM oob_transactions WHERE dispatch_token_hash = ?", [.bytes(dispatchTokenHash)])
    }

    static func outOfBandTransaction(id: String) -> StoreQuery {
        StoreQuery("SELECT * FROM oob_transactions WHERE transaction_id = ?", [.text(id)])
    }

    static func redeemOutOfBandDispatch(tokenHash: [UInt8], challenge: [UInt8], at now: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE oob_transactions SET redeemed_at = ?, challenge = ?, updated_at = ?, sealed_dispatch_token = NULL
            WHERE dispatch_token_hash = ? AND redeemed_at IS NULL AND status = 'pending' AND expires_at > ?
            RETURNING *
            """,
            [.date(now), .bytes(challenge), .date(now), .bytes(tokenHash), .date(now)])
    }

    static func finishOutOfBandTransaction(
        id: String, status: OutOfBandStatus, userID: String?, credentialID: [UInt8]?, sealedToken: [UInt8]?,
        evidence: String?, at now: Date
    ) -> StoreQuery {
        StoreQuery(
            """
            UPDATE oob_transactions SET status = ?, user_id = COALESCE(user_id, ?), credential_id = ?,
                sealed_token = ?, evidence = ?, updated_at = ?, sealed_dispatch_token = NULL
            WHERE transaction_id = ? AND status = 'pending' RETURNING transaction_id
            """,
            [
                .text(status.rawValue), userID.map { .text($0) } ?? .null, credentialID.map { .bytes($0) } ?? .null,
                sealedToken.map { .bytes($0) } ?? .null, evidence.map { .text($0) } ?? .null, .date(now), .text(id),
            ])
    }
}

extension OutOfBandTransactionRecord {
    init(row: any StoredRow) throws {
        guard let operation = OutOfBandOperation(rawValue: try row.text("operation")),
            let status = OutOfBandStatus(rawValue: try row.text("status"))
        else { throw StoreError(.corrupt, "an out-of-band transaction's operation or status") }
        func bytes(_ column: String) throws -> [UInt8]? {
            try row.optionalText(column).map { try StoredValue.bytes($0) }
        }
        self.init(
            transactionID: try row.text("transaction_id"), applicationID: try row.uuid("application_id"),
            operation: operation, userID: row.optionalText("user_id"), username: row.optionalText("username"),
            status: status, statusTokenHash: try row.bytes("status_token_hash"),
            dispatchTokenHash: try row.bytes("dispatch_token_hash"),
            sealedDispatchToken: try bytes("sealed_dispatch_token"),
            redeemedAt: row.optionalDate("redeemed_at"), message: row.optionalText("message"),
            approvalNonce: try bytes("approval_nonce"), matchingNumber: row.optionalText("matching_number"),
            challenge: try bytes("challenge"), credentialID: try bytes("credential_id"),
            sealedToken: try bytes("sealed_token"), authorizationDetails: row.optionalText("authorization_details"),
            evidence: row.optionalText("evidence"), sealedPing: try bytes("sealed_ping"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), expiresAt: try row.date("expires_at"))
    }
}

extension SQLStore {
    func insertOutOfBandTransaction(_ transaction: OutOfBandTransactionRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertOutOfBandTransaction(transaction))
    }

    func outOfBandTransaction(statusTokenHash: [UInt8]) async throws -> OutOfBandTransactionRecord? {
        try await executor.rows(StoreQueries.outOfBandTransaction(statusTokenHash: statusTokenHash)).first.map(
            OutOfBandTransactionRecord.init(row:))
    }

    func outOfBandTransaction(dispatchTokenHash: [UInt8]) async throws -> OutOfBandTransactionRecord? {
        try await executor.rows(StoreQueries.outOfBandTransaction(dispatchTokenHash: dispatchTokenHash)).first.map(
            OutOfBandTransactionRecord.init(row:))
    }

    func outOfBandTransaction(id: String) async throws -> OutOfBandTransactionRecord? {
        try await executor.rows(StoreQueries.outOfBandTransaction(id: id)).first.map(
            OutOfBandTransactionRecord.init(row:))
    }

    func redeemOutOfBandDispatch(tokenHash: [UInt8], challenge: [UInt8], at now: Date) async throws
        -> OutOfBandTransactionRecord?
    {
        try await executor.rows(
            StoreQueries.redeemOutOfBandDispatch(tokenHash: tokenHash, challenge: challenge, at: now)
        )
        .first.map(OutOfBandTransactionRecord.init(row:))
    }

    func finishOutOfBandTransaction(
        id: String, status: OutOfBandStatus, userID: String?, credentialID: [UInt8]?, sealedToken: [UInt8]?,
        evidence: String?, at now: Date
    ) async throws -> Bool {
        try await !executor.rows(
            StoreQueries.finishOutOfBandTransaction(
                id: id, status: status, userID: userID, credentialID: credentialID, sealedToken: sealedToken,
                evidence: evidence, at: now)
        ).isEmpty
    }

    func pendingApprovals(applicationID: UUID, userID: String, at now: Date) async throws
        -> [OutOfBandTransactionRecord]
    {
        try await executor.rows(StoreQueries.pendingApprovals(applicationID: applicationID, userID: userID, at: now))
            .map(OutOfBandTransactionRecord.init(row:))
    }

    func expireOutOfBandTransactions(at now: Date) async throws -> [OutOfBandTransactionRecord] {
        try await executor.rows(StoreQueries.expireOutOfBandTransactions(at: now)).map(
            OutOfBandTransactionRecord.init(row:))
    }
}
