import Foundation
import Testing
import UMFAStorage

/// Each outbox keeps the `traceparent` of the request that queued a row and gives it back with
/// the claimed row, so its delivery continues that trace (docs/operators/tracing.md); a row
/// queued without one gives back none.
@Suite("Storage: outbox rows keep their traceparent")
struct OutboxTraceParentStoreTests {
    static let traced = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test(
        "webhook, logout-token and mail rows give back the traceparent they were queued with",
        arguments: Engine.allCases)
    func roundTrip(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            for (id, parent) in [("w1", Self.traced), ("w2", nil)] {
                try await store.enqueueWebhook(
                    WebhookDeliveryRecord(
                        id: id, applicationID: app.id, body: "{}", nextAttemptAt: Records.time(1),
                        createdAt: Records.time(Double(id.count)), traceParent: parent))
            }
            try await store.enqueueLogoutTokens([
                LogoutDeliveryRecord(
                    id: "l1", applicationID: app.id, clientID: "shop", uri: "https://shop.example/logout", body: "t",
                    nextAttemptAt: Records.time(1), createdAt: Records.time(1), traceParent: Self.traced)
            ])
            try await store.enqueueMail(
                MailDeliveryRecord(
                    id: "m1", applicationID: app.id, userID: "alice", recipient: "alice@example.com",
                    sealedMessage: [1, 2, 3], nextAttemptAt: Records.time(1), createdAt: Records.time(1),
                    traceParent: Self.traced))

            let webhooks = try await store.claimDueWebhooks(
                at: Records.time(5), leaseUntil: Records.time(60), limit: 10)
            #expect(
                Dictionary(uniqueKeysWithValues: webhooks.map { ($0.id, $0.traceParent) }) == [
                    "w1": Self.traced, "w2": nil,
                ])
            let logouts = try await store.claimDueLogoutTokens(
                at: Records.time(5), leaseUntil: Records.time(60), limit: 10)
            #expect(logouts.map(\.traceParent) == [Self.traced])
            let mail = try await store.claimDueMail(at: Records.time(5), leaseUntil: Records.time(60), limit: 10)
            #expect(mail.map(\.traceParent) == [Self.traced])
        }
    }

    @Test("without a tracer a new record carries no traceparent")
    func untraced() {
        let record = WebhookDeliveryRecord(
            id: "w", applicationID: UUID(), body: "{}", nextAttemptAt: Records.time(1), createdAt: Records.time(1))
        #expect(record.traceParent == nil)
    }
}
