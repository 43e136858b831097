import Crypto
import Foundation
import Logging
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Webhooks (docs/contract.md §7): every change of an out-of-band transaction goes into the outbox of
/// its application, when the application has a webhook URL; ``WebhookDispatcher`` sends it,
/// signed with the application's secret.
struct Webhooks: Sendable {
    let store: any ApplicationStore & WebhookOutboxStore
    let sealed: SealedSecrets
    let logger: Logger
    let now: @Sendable () -> Date

    static let secretPrefix = "umfa_whs_"

    /// A new secret and its sealed form, to store.
    func newSecret() throws -> (secret: String, sealed: [UInt8]) {
        let secret = Secrets.make(prefix: Self.secretPrefix)
        return (secret, try self.sealed.seal(secret, for: .webhookSecret))
    }

    /// Puts `transaction`'s change to `status` into the outbox; an outbox that refuses it is an
    /// error in the server log (the change itself stands).
    func record(_ transaction: OutOfBandTransactionRecord, status: OutOfBandStatus, userID: String?) async {
        // CIBA Core §10.2: a ping once the person answered. An expiry is not pinged: a request
        // for an unknown person has no approval to expire, and must look the same.
        if [.succeeded, .denied, .failed].contains(status), let sealedPing = transaction.sealedPing {
            await ping(sealedPing, transaction)
        }
        do {
            guard let application = try await store.application(id: transaction.applicationID),
                application.webhookURL != nil
            else { return }
            let now = self.now()
            let event = WebhookEvent(
                type: status == .pending ? "transaction.created" : "transaction.\(status.rawValue)",
                transactionId: transaction.transactionID, status: status.rawValue,
                userId: userID ?? transaction.userID, occurredAt: Timestamps.rfc3339(now))
            if let delivery = try Self.delivery(of: event, for: application, at: now) {
                try await store.enqueueWebhook(delivery)
            }
        } catch {
            logger.error(
                "a webhook event could not be queued",
                metadata: [
                    "transaction_id": .string(transaction.transactionID), "error.message": .string("\(error)"),
                ])
        }
    }

    /// Puts the CIBA ping of an approval that ended into the outbox (OpenID CIBA Core 1.0 §10.2),
    /// sealed as the approval kept it.
    private func ping(_ sealedPing: [UInt8], _ transaction: OutOfBandTransactionRecord) async {
        do {
            let ping = try CIBAPing.open(sealedPing, with: sealed)
            let now = self.now()
            try await store.enqueueWebhook(
                WebhookDeliveryRecord(
                    id: TimeOrderedID.next(at: now), applicationID: transaction.applicationID, body: ping.body,
                    nextAttemptAt: now, createdAt: now, sealedTarget: sealedPing))
        } catch {
            logger.error(
                "a CIBA ping could not be queued",
                metadata: [
                    "transaction_id": .string(transaction.transactionID), "error.message": .string("\(error)"),
                ])
        }
    }

    /// The outbox row that delivers `event` to `application`'s webhook, due at once; `nil` when
    /// the application has no webhook.
    static func delivery(of event: some Encodable, for application: ApplicationRecord, at now: Date) throws
        -> WebhookDeliveryRecord?
    {
        guard application.webhookURL != nil else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return WebhookDeliveryRecord(
            id: TimeOrderedID.next(at: now), applicationID: application.id,
            body: String(decoding: try encoder.encode(event), as: UTF8.self), nextAttemptAt: now, createdAt: now)
    }

    /// `UMFA-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body" with the secret>`.
    static func signature(body: String, secret: String, at time: Date) -> String {
        let stamp = Int64(time.timeIntervalSince1970)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(stamp).\(body)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(stamp),v1=\(Hex.encode(mac))"
    }

    /// A webhook URL an admin may set: https, or http to a loopback address (docs/contract.md §7).
    static func validURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2000, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host?.lowercased(), !host.isEmpty, url.fragment == nil, url.user == nil
        else { return false }
        return scheme == "https" || (scheme == "http" && OAuthClientSettings.loopbackHosts.contains(host))
    }
}
