import Foundation

/// A user's pending email verification (docs/self-service.md, "Verifying the email address"): the
/// address the code went to, the code's SHA-256, the attempts left and when it ends.
package struct EmailVerificationRecord: Sendable, Equatable {
    package var applicationID: UUID
    package var userID: String
    /// The address the code was sent to; only that address is verified by it.
    package var email: String
    package var codeHash: [UInt8]
    package var attemptsLeft: Int
    package var sentAt: Date
    package var expiresAt: Date

    /// Creates a record.
    package init(
        applicationID: UUID, userID: String, email: String, codeHash: [UInt8], attemptsLeft: Int, sentAt: Date,
        expiresAt: Date
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.email = email
        self.codeHash = codeHash
        self.attemptsLeft = attemptsLeft
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }
}

/// Email verifications, one pending per user, gone with the user.
package protocol EmailVerificationStore: Sendable {
    /// Stores `record` in place of the user's pending verification, with the message that
    /// carries its code, in one transaction.
    func startEmailVerification(_ record: EmailVerificationRecord, mail: MailDeliveryRecord) async throws
    /// The user's pending verification, spent or not.
    func emailVerification(applicationID: UUID, userID: String) async throws -> EmailVerificationRecord?
    /// Spends one attempt of the user's pending verification, in one statement, so attempts on
    /// several instances at once never get more than the limit; the verification as it is after
    /// the attempt, `nil` when none is pending, none is left or it expired.
    func spendEmailVerificationAttempt(applicationID: UUID, userID: String, at now: Date) async throws
        -> EmailVerificationRecord?
    /// Marks the user's email verified when it is still `email`, and ends the verification, in
    /// one transaction; `false`, with nothing changed, when the address changed meanwhile.
    func completeEmailVerification(applicationID: UUID, userID: String, email: String, at now: Date) async throws
        -> Bool
}

extension EmailVerificationRecord {
    init(row: any StoredRow) throws {
        self.init(
            applicationID: try row.uuid("application_id"), userID: try row.text("user_id"),
            email: try row.text("email"), codeHash: try row.bytes("code_hash"),
            attemptsLeft: Int(try row.integer("attempts_left")), sentAt: try row.date("sent_at"),
            expiresAt: try row.date("expires_at"))
    }
}

extension SQLStore {
    func startEmailVerification(_ record: EmailVerificationRecord, mail: MailDeliveryRecord) async throws {
        let save = StoreQuery(
            """
            INSERT INTO email_verifications (application_id, user_id, email, code_hash, attempts_left, sent_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (application_id, user_id) DO UPDATE SET email = excluded.email,
                code_hash = excluded.code_hash, attempts_left = excluded.attempts_left, sent_at = excluded.sent_at,
                expires_at = excluded.expires_at
            """,
            [
                .uuid(record.applicationID), .text(record.userID), .text(record.email), .bytes(record.codeHash),
                .integer(Int64(record.attemptsLeft)), .date(record.sentAt), .date(record.expiresAt),
            ])
        _ = try await executor.atomically([
            TransactionStep(query: save), TransactionStep(query: StoreQueries.enqueueMail(mail)),
        ])
    }

    func emailVerification(applicationID: UUID, userID: String) async throws -> EmailVerificationRecord? {
        try await executor.rows(
            StoreQuery(
                "SELECT * FROM email_verifications WHERE application_id = ? AND user_id = ?",
                [.uuid(applicationID), .text(userID)])
        ).first.map(EmailVerificationRecord.init(row:))
    }

    func spendEmailVerificationAttempt(applicationID: UUID, userID: String, at now: Date) async throws
        -> EmailVerificationRecord?
    {
        try await executor.rows(
            StoreQuery(
                """
                UPDATE email_verifications SET attempts_left = attempts_left - 1
                WHERE application_id = ? AND user_id = ? AND attempts_left > 0 AND expires_at > ?
                RETURNING *
                """,
                [.uuid(applicationID), .text(userID), .date(now)])
        ).first.map(EmailVerificationRecord.init(row:))
    }

    func completeEmailVerification(applicationID: UUID, userID: String, email: String, at now: Date) async throws
        -> Bool
    {
        let owner: [StoreQuery.Value] = [.uuid(applicationID), .text(userID)]
        return try await executor.atomically([
            TransactionStep(
                query: StoreQuery(
                    """
                    UPDATE user_profiles SET email_verified = 1, updated_at = ?
                    WHERE application_id = ? AND user_id = ? AND email = ? RETURNING user_id
                    """,
                    [.date(now)] + owner + [.text(email)]),
                needsRow: true),
            TransactionStep(
                query: StoreQuery("DELETE FROM email_verifications WHERE application_id = ? AND user_id = ?", owner)),
        ]) != nil
    }
}
