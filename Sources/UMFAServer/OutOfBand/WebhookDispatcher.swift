import Foundation
import Logging
import ServiceLifecycle
import Tracing
import UMFAStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the webhook outbox (docs/contract.md §7) and ends out-of-band transactions whose time is up.
///
/// Every ``interval`` it claims due deliveries one at a time (a lease of ``timeout`` plus five
/// seconds, in one statement, so instances sharing a database never send a row twice at once),
/// POSTs each body signed with the application's current secret, and deletes the row on a 2xx
/// answer. After a retry, events of one transaction may arrive out of order: receivers order
/// them by `occurredAt`.
/// Anything else is tried again after the next step of ``OutboxRetry/backoff``; after the last
/// step the event is dropped with an error in the server log. A server killed mid-delivery leaves the
/// row in the table, and the next start (or another instance) sends it when its lease ends.
struct WebhookDispatcher: Service {
    let store: any ApplicationStore & OutOfBandStore & WebhookOutboxStore
    let webhooks: Webhooks
    let sealed: SealedSecrets
    let metrics: ServerMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    /// How long one delivery may take.
    var timeout: Duration = .seconds(10)
    var interval: Duration = .seconds(1)

    func run() async throws {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        await runPeriodically(every: interval) {
            await expireTransactions()
            await deliverDue(session: session)
        }
        session.invalidateAndCancel()
    }

    /// Ends pending transactions past their expiry and queues their webhook events.
    func expireTransactions() async {
        do {
            for transaction in try await store.expireOutOfBandTransactions(at: now()) {
                await webhooks.record(transaction, status: .expired, userID: nil)
            }
        } catch {
            logger.warning(
                "expiring out-of-band transactions failed", metadata: ["error.message": .string("\(error)")])
        }
    }

    /// One pass: up to ``batch`` due deliveries, each claimed just before it is sent, so no
    /// lease runs out while its row waits behind another.
    func deliverDue(session: URLSession) async {
        for _ in 0..<Self.batch {
            let now = self.now()
            let due: [WebhookDeliveryRecord]
            do {
                due = try await store.claimDueWebhooks(
                    at: now, leaseUntil: now.addingTimeInterval(timeout.timeInterval + 5), limit: 1)
            } catch {
                logger.warning(
                    "reading the webhook outbox failed", metadata: ["error.message": .string("\(error)")])
                return
            }
            guard let delivery = due.first else { return }
            await deliver(delivery, session: session)
        }
    }

    /// Deliveries per pass.
    static let batch = 20

    private func deliver(_ delivery: WebhookDeliveryRecord, session: URLSession) async {
        await ServerTracing.outbound("webhook POST", continuing: delivery.traceParent) { span in
            span.attributes["http.request.method"] = "POST"
            await deliverTraced(delivery, session: session, span: span)
        }
    }

    private func deliverTraced(_ delivery: WebhookDeliveryRecord, session: URLSession, span: any Span) async {
        do {
            if let sealedTarget = delivery.sealedTarget {
                return try await deliverPing(
                    delivery, CIBAPing.open(sealedTarget, with: sealed), session: session, span: span)
            }
            guard let application = try await store.application(id: delivery.applicationID),
                let target = application.webhookURL, let url = URL(string: target),
                let sealed = application.sealedWebhookSecret
            else {
                // The application no longer wants webhooks: nothing to send to.
                try await store.deleteWebhook(id: delivery.id)
                return
            }
            let secret = try self.sealed.open(sealed, for: .webhookSecret)
            var request = URLRequest(url: url, timeoutInterval: timeout.timeInterval)
            request.httpMethod = "POST"
            request.httpBody = Data(delivery.body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("UMFA-Webhooks/1", forHTTPHeaderField: "User-Agent")
            request.setValue(delivery.id, forHTTPHeaderField: "UMFA-Webhook-Id")
            request.setValue(
                Webhooks.signature(body: delivery.body, secret: secret, at: now()),
                forHTTPHeaderField: "UMFA-Signature")
            try await send(request, delivery, session: session, span: span)
        } catch {
            // The store or the sealed secret failed: an attempt like any other, so retries end.
            logger.error(
                "a webhook delivery failed",
                metadata: ["webhook_id": .string(delivery.id), "error.message": .string("\(error)")])
            try? await retry(delivery, failure: "the server could not send it")
        }
    }

    /// POSTs `request` for `delivery`: removed on a 2xx answer, else tried again later.
    private func send(_ request: URLRequest, _ delivery: WebhookDeliveryRecord, session: URLSession, span: any Span)
        async throws
    {
        var request = request
        // W3C Trace Context §3: the receiver's work joins the trace of the request that caused it.
        request.setValue(TraceParent.current(), forHTTPHeaderField: "traceparent")
        let failure: String
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            ServerTracing.answered(span, status: status, host: request.url?.host)
            if (200..<300).contains(status) {
                try await store.deleteWebhook(id: delivery.id)
                metrics.webhook("delivered")
                return
            }
            failure = "the receiver answered HTTP \(status)"
        } catch {
            ServerTracing.answered(span, status: nil, host: request.url?.host)
            failure = "the receiver could not be reached: \((error as NSError).localizedDescription)"
        }
        try await retry(delivery, failure: failure)
    }

    /// A CIBA ping (OpenID CIBA Core 1.0 §10.2): `{"auth_req_id": …}` to the client's
    /// notification endpoint with its `client_notification_token` as a bearer token; a
    /// self-registered client's endpoint must resolve to public addresses only.
    private func deliverPing(
        _ delivery: WebhookDeliveryRecord, _ ping: CIBAPing, session: URLSession, span: any Span
    ) async throws {
        guard let url = URL(string: ping.endpoint), let host = url.host else {
            try await store.deleteWebhook(id: delivery.id)
            return
        }
        if ping.publicOnly, await !OutboundAddress.resolvesToPublicOnly(host) {
            logger.error(
                "a CIBA ping was not sent: the self-registered client's endpoint is not a public address",
                metadata: ["webhook_id": .string(delivery.id), "client_id": .string(ping.clientID)])
            try await store.deleteWebhook(id: delivery.id)
            metrics.webhook("dropped")
            return
        }
        var request = URLRequest(url: url, timeoutInterval: timeout.timeInterval)
        request.httpMethod = "POST"
        request.httpBody = Data(delivery.body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("UMFA-CIBA/1", forHTTPHeaderField: "User-Agent")
        request.setValue("Bearer " + ping.token, forHTTPHeaderField: "Authorization")
        try await send(request, delivery, session: session, span: span)
    }

    private func retry(_ delivery: WebhookDeliveryRecord, failure: String) async throws {
        let attempts = delivery.attempts + 1
        guard let next = OutboxRetry.next(after: attempts, from: now()) else {
            logger.error(
                "a webhook event was dropped after every retry",
                metadata: [
                    "webhook_id": .string(delivery.id), "application_id": .string(delivery.applicationID.uuidString),
                    "error.message": .string(failure),
                ])
            try await store.deleteWebhook(id: delivery.id)
            metrics.webhook("dropped")
            return
        }
        metrics.webhook("retried")
        logger.warning(
            "a webhook delivery will be retried",
            metadata: [
                "webhook_id": .string(delivery.id), "attempts": .stringConvertible(attempts),
                "error.message": .string(failure),
            ])
        try await store.rescheduleWebhook(
            id: delivery.id, claimedUntil: delivery.nextAttemptAt, attempts: attempts,
            nextAttemptAt: next, error: failure)
    }
}

/// Webhooks and logout tokens go to the URL set for them, never where a redirect points.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
