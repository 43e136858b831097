import Foundation
import Logging
import UMFAEncoding
import UMFAStorage

/// Puts UMFA's mail into the outbox (``MailDispatcher`` sends it): a template filled in, the
/// message sealed with the master key (it may hold a code), addressed to one recipient. Without
/// `UMFA_SMTP_URL` mail is off: ``isOn`` is `false` and nothing is queued.
struct Mailer: Sendable {
    let settings: MailSettings?
    let templates: MailTemplates
    let store: any MailOutboxStore
    let sealed: SealedSecrets
    let logger: Logger
    let now: @Sendable () -> Date

    /// Whether the server sends mail.
    var isOn: Bool { settings != nil }

    /// The answer of a route that needs mail on a server without it.
    static let off = ServiceError(.conflict, "This server sends no mail: its operator has not configured UMFA_SMTP_URL")

    /// The outbox row of `template` with `values` for `recipient`, due at once; `nil` when mail is off.
    func delivery(
        _ template: MailTemplates.Name, to recipient: String, values: [String: String],
        application: ApplicationRecord, userID: String?
    ) throws -> MailDeliveryRecord? {
        guard let settings, MailAddress.isValid(recipient) else { return nil }
        let now = now()
        var values = values
        values["application"] = values["application"] ?? application.name
        values["time"] = values["time"] ?? MailMessage.rfc5322Date(now)
        let text = templates.render(template, values)
        let id = UUID().uuidString.lowercased()
        let message = MailMessage(
            id: id, from: settings.fromHeader, to: recipient, subject: text.subject, body: text.body, date: now)
        return MailDeliveryRecord(
            id: id, applicationID: application.id, userID: userID, recipient: recipient,
            sealedMessage: try sealed.seal(message.rendered, for: .mailMessage), nextAttemptAt: now, createdAt: now)
    }

    /// Queues `template` for `recipient`; a failure is an error in the server log (the change
    /// that asked for the mail stands). Nothing when mail is off.
    func send(
        _ template: MailTemplates.Name, to recipient: String, values: [String: String] = [:],
        application: ApplicationRecord, userID: String?
    ) async {
        do {
            guard
                let delivery = try self.delivery(
                    template, to: recipient, values: values, application: application, userID: userID)
            else { return }
            try await store.enqueueMail(delivery)
        } catch {
            logger.error(
                "a mail could not be queued",
                metadata: ["mail.template": .string(template.rawValue), "error.message": .string("\(error)")])
        }
    }
}
