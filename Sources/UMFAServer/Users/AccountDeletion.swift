import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// Deletes whole accounts (docs/contract.md §8, "Deleting an account"), for the admin, the
/// application's backend and the user themselves: the user, profile, passkeys, device keys,
/// recovery codes, out-of-band transactions, consents, sessions, codes and refresh tokens, in
/// one transaction with the audit event `user.deleted` and the webhook of the same type (the
/// user id, nothing else of theirs).
///
/// What the user signed in to ends with the commit, on every instance: refresh tokens and
/// sessions are gone, the access tokens of their families are marked revoked, and a login
/// token or access token is refused anyway once its passkey is not registered to its user
/// (``SignInCredentials``); validate-token's memory forgets the user with the statement that
/// deletes them (``ValidationCache``). The email address is free for a new sign-up at once.
struct AccountDeletion: Sendable {
    let store: any AccountDeletionStore
    let audit: AuditLog
    /// Tells the clients the user was signed in to (OpenID Connect Back-Channel Logout 1.0).
    let backchannel: BackchannelLogout

    /// Deletes `userID` of `application`, recorded as `actor`'s deletion through `via`
    /// (`admin`, `api_key`, `self_service`); `false`, with nothing changed, when there is no
    /// such user.
    func delete(
        _ application: ApplicationRecord, userID: String, actor: AuditActor, caller: Caller, via: String
    ) async throws -> Bool {
        let now = audit.now()
        let event = audit.event(
            .userDeleted, application: application.id, actor: actor, userID: userID, caller: caller,
            details: ["via": .string(via)], at: now)
        let webhook = try Webhooks.delivery(
            of: AccountWebhookEvent(
                type: AuditAction.userDeleted.rawValue, userId: userID, occurredAt: Timestamps.rfc3339(now)),
            for: application, at: now)
        // The clients the user was signed in to are taken before the deletion removes their records,
        // and told even when the deletion fails: signing them out is the safe side.
        let participants = await backchannel.take(userID: userID, credentialID: nil, in: application.id)
        do {
            let deleted = try await store.deleteAccount(
                AccountDeletionRecord(
                    applicationID: application.id, userID: userID,
                    tokensMarkedUntil: now.addingTimeInterval(SignInCredentials.familyMarkLifetime), auditEvent: event,
                    webhook: webhook))
            await backchannel.send(participants, in: application.id)
            return deleted
        } catch {
            await backchannel.send(participants, in: application.id)
            throw error
        }
    }
}
