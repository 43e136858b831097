import Foundation

/// Deleting a user's whole account (docs/contract.md §8, "Deleting an account").
package protocol AccountDeletionStore: Sendable {
    /// Deletes the account `deletion` names, in one transaction, and records it there too: all
    /// of it is gone, or none of it (a crash half way leaves the whole account).
    ///
    /// Gone: the user, profile, credentials with their device keys, recovery codes (by the
    /// schema's cascades); every OAuth grant with the user as subject (SSO sessions, codes,
    /// refresh tokens, consents), their families' access tokens marked revoked until
    /// ``AccountDeletionRecord/tokensMarkedUntil``; the user's out-of-band transactions,
    /// challenges, enrollment tokens, pending email verification and unsent mail. Written: the audit event and, when given, the webhook
    /// delivery. `false`, with nothing changed, when there is no such user.
    func deleteAccount(_ deletion: AccountDeletionRecord) async throws -> Bool
}

/// What ``AccountDeletionStore/deleteAccount(_:)`` deletes and records.
package struct AccountDeletionRecord: Sendable {
    /// The user's application.
    package let applicationID: UUID
    /// The user.
    package let userID: String
    /// Until when the access tokens of the user's refresh-token families stay marked revoked
    /// (past the longest lifetime any of them can have).
    package let tokensMarkedUntil: Date
    /// The audit event recording the deletion.
    package let auditEvent: AuditEventRecord
    /// The webhook delivery announcing it, when the application has a webhook.
    package let webhook: WebhookDeliveryRecord?

    /// A deletion to run.
    package init(
        applicationID: UUID, userID: String, tokensMarkedUntil: Date, auditEvent: AuditEventRecord,
        webhook: WebhookDeliveryRecord?
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.tokensMarkedUntil = tokensMarkedUntil
        self.auditEvent = auditEvent
        self.webhook = webhook
    }
}

extension StoreQueries {
    /// The statements of an account's deletion, in order; the user's own row goes first and
    /// must be there, so an unknown user changes nothing.
    static func deleteAccount(_ deletion: AccountDeletionRecord) -> [TransactionStep] {
        let owner: [StoreQuery.Value] = [.uuid(deletion.applicationID), .text(deletion.userID)]
        var steps = [
            TransactionStep(
                query: StoreQuery(
                    "DELETE FROM users WHERE application_id = ? AND user_id = ? RETURNING user_id", owner),
                needsRow: true),
            // The marks go in before the grants go: an access token of any family of the user's
            // is refused from the commit on, on every instance.
            TransactionStep(
                query: markOAuthGrantFamilies(
                    applicationID: deletion.applicationID, subject: deletion.userID, credentialID: nil,
                    markedUntil: deletion.tokensMarkedUntil)),
            TransactionStep(
                query: StoreQuery("DELETE FROM oauth_grants WHERE application_id = ? AND subject = ?", owner)),
            TransactionStep(
                query: StoreQuery("DELETE FROM oob_transactions WHERE application_id = ? AND user_id = ?", owner)),
            TransactionStep(
                query: StoreQuery("DELETE FROM challenges WHERE application_id = ? AND user_id = ?", owner)),
            TransactionStep(
                query: StoreQuery("DELETE FROM enrollment_tokens WHERE application_id = ? AND user_id = ?", owner)),
            TransactionStep(
                query: StoreQuery("DELETE FROM mail_outbox WHERE application_id = ? AND user_id = ?", owner)),
            TransactionStep(query: insertAuditEvent(deletion.auditEvent)),
        ]
        if let webhook = deletion.webhook { steps.append(TransactionStep(query: enqueueWebhook(webhook))) }
        return steps
    }
}

extension SQLStore {
    func deleteAccount(_ deletion: AccountDeletionRecord) async throws -> Bool {
        try await executor.atomically(StoreQueries.deleteAccount(deletion)) != nil
    }
}
