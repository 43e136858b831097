import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Tracing
import UMFAStorage

/// Sends the mail outbox (docs/operators/mail.md): every ``interval`` it claims due messages one
/// at a time (a lease of the delivery timeout plus five seconds, so instances sharing a database
/// never send one twice at once), opens each and hands it to the mail server, and deletes the row
/// once the server took it. A refusal with a 5xx answer drops the message at once (it would never
/// go); any other failure is tried again after the next step of ``OutboxRetry/backoff``. A
/// request never waits for the mail server.
struct MailDispatcher: Service {
    let settings: MailSettings
    let store: any MailOutboxStore
    let sealed: SealedSecrets
    let metrics: ServerMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    var interval: Duration = .seconds(1)

    /// Messages per pass.
    static let batch = 20

    func run() async throws {
        let client = SMTPClient(settings: settings, group: MultiThreadedEventLoopGroup.singleton)
        await runPeriodically(every: interval) {
            await sendDue(client)
        }
    }

    /// One pass: up to ``batch`` due messages, each claimed just before it is sent.
    func sendDue(_ client: SMTPClient) async {
        for _ in 0..<Self.batch {
            let now = self.now()
            let due: [MailDeliveryRecord]
            do {
                due = try await store.claimDueMail(
                    at: now, leaseUntil: now.addingTimeInterval(settings.timeout.timeInterval + 5), limit: 1)
                metrics.mailPending(try await store.pendingMailCount())
            } catch {
                logger.warning("reading the mail outbox failed", metadata: ["error.message": .string("\(error)")])
                return
            }
            guard let delivery = due.first else { return }
            await send(delivery, client: client)
        }
    }

    private func send(_ delivery: MailDeliveryRecord, client: SMTPClient) async {
        await ServerTracing.outbound("SMTP send", continuing: delivery.traceParent) { _ in
            await sendTraced(delivery, client: client)
        }
    }

    private func sendTraced(_ delivery: MailDeliveryRecord, client: SMTPClient) async {
        let failure: SMTPFailure
        do {
            let message = try sealed.open(delivery.sealedMessage, for: .mailMessage)
            do {
                try await client.send(message: message, to: delivery.recipient)
                try await store.deleteMail(id: delivery.id)
                metrics.mail("sent")
                return
            } catch let error as SMTPFailure {
                failure = error
            }
        } catch {
            // The store or the sealed message failed: an attempt like any other, so retries end.
            failure = SMTPFailure(permanent: false, "the server could not send it: \(type(of: error))")
        }
        do {
            try await retry(delivery, failure: failure)
        } catch {
            logger.warning("the mail outbox could not be updated", metadata: ["error.message": .string("\(error)")])
        }
    }

    private func retry(_ delivery: MailDeliveryRecord, failure: SMTPFailure) async throws {
        let attempts = delivery.attempts + 1
        let metadata: Logger.Metadata = [
            "mail_id": .string(delivery.id), "attempts": .stringConvertible(attempts),
            "error.message": .string(failure.description),
        ]
        guard !failure.permanent, let next = OutboxRetry.next(after: attempts, from: now()) else {
            logger.error(
                failure.permanent ? "the mail server refused a message" : "a message was dropped after every retry",
                metadata: metadata)
            try await store.deleteMail(id: delivery.id)
            metrics.mail("dropped")
            return
        }
        metrics.mail("retried")
        logger.warning("a message will be sent again", metadata: metadata)
        try await store.rescheduleMail(
            id: delivery.id, claimedUntil: delivery.nextAttemptAt, attempts: attempts, nextAttemptAt: next,
            error: failure.description)
    }
}
