import Foundation
import Logging
import UMFAStorage

/// Security notices by mail (docs/self-service.md, "Security notices"): the account's owner hears
/// of a passkey added or removed (by its name), a recovery code used and recovery codes made, at
/// the account's verified address, never an unverified one (which may not be theirs). They follow
/// the audit log's events (``AuditLog``), so every way of doing one of these is covered.
struct SecurityNotices: Sendable {
    let mailer: Mailer
    let store: any ApplicationStore & UserProfileStore

    /// The notice an audit action calls for.
    static func template(for action: String) -> MailTemplates.Name? {
        switch action {
        case AuditAction.registrationSucceeded.rawValue: .passkeyAdded
        case AuditAction.credentialDeleted.rawValue: .passkeyRemoved
        case AuditAction.recoveryUsed.rawValue: .recoveryCodesUsed
        case AuditAction.recoveryCodesCreated.rawValue: .recoveryCodesCreated
        case AuditAction.accountRecovered.rawValue: .accountRecovered
        default: nil
        }
    }

    /// Mails the notice `event` calls for, when mail is on and the user's address is verified.
    func after(_ event: AuditEventRecord) async {
        guard mailer.isOn, let template = Self.template(for: event.action), let applicationID = event.applicationID,
            let userID = event.userID
        else { return }
        do {
            guard let application = try await store.application(id: applicationID),
                let profile = try await store.userProfile(applicationID: applicationID, userID: userID),
                let email = profile.email, profile.emailVerified
            else { return }
            let passkey = event.details["passkey_name"]?.stringValue ?? "without a name"
            await mailer.send(
                template, to: email, values: ["passkey": passkey, "time": MailMessage.rfc5322Date(event.occurredAt)],
                application: application, userID: userID)
        } catch {
            mailer.logger.error(
                "a security notice was not queued",
                metadata: ["audit.action": .string(event.action), "error.message": .string("\(error)")])
        }
    }

    /// Tells the old, verified address of an account that its address changed to another.
    func emailChanged(from old: UserProfileRecord, to new: String?, application: ApplicationRecord) async {
        guard let email = old.email, old.emailVerified, email.lowercased() != new?.lowercased() else { return }
        await mailer.send(.emailChanged, to: email, application: application, userID: old.userID)
    }
}
