import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Pending approvals reach an enrolled device (docs/contract.md §7) by a fetch
/// (`POST /api/umfa/approvals/pending`) or by a server-sent event stream
/// (`GET /api/umfa/approvals/events`), both under a device proof. Each approval carries the
/// app link's `dispatchTokenResponse`, which the device redeems as if it had scanned the QR code.
struct PendingApprovalRoutes: Sendable {
    let store: any ApplicationStore & OutOfBandStore
    let deviceProofs: DeviceProofCheck
    let sealed: SealedSecrets
    /// The server's public URL, the base of app links.
    let publicURL: String
    let now: @Sendable () -> Date

    /// How long one event stream stays open at most (clients reconnect, as SSE clients do).
    static let streamLifetime = 300
    /// How often the stream looks for new approvals (every instance sees the shared store).
    static let pollInterval: Duration = .seconds(1)
    /// A comment line every this many polls keeps proxies from closing an idle stream, and
    /// finds a client that went away.
    static let heartbeatEvery = 5

    /// `POST /api/umfa/approvals/pending`.
    func fetch(_ request: PendingApprovalsRequest, caller: Caller) async throws -> PendingApprovalsResponse {
        let (application, _) = try await authorize(
            caller, method: "POST", operation: .pendingApprovals, applicationID: request.applicationID,
            userID: request.userID)
        return PendingApprovalsResponse(
            traceID: caller.traceID, approvals: try await approvals(application: application, userID: request.userID))
    }

    /// `GET /api/umfa/approvals/events?application_id=…&user_id=…[&max_seconds=…]`: one
    /// `approval` event per approval, as it appears (the ones pending when the stream opens first).
    func stream(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let caller = context.caller(request, traceID: TraceID.from(request, context: context))
        try Self.requireProof(caller)
        let query = request.uri.queryParameters
        guard let applicationID = query.get("application_id"), let userID = query.get("user_id") else {
            throw ServiceError.invalid("application_id and user_id are required query parameters")
        }
        var lifetime = Self.streamLifetime
        if let text = query.get("max_seconds") {
            guard let seconds = Int(text), (1...Self.streamLifetime).contains(seconds) else {
                throw ServiceError.invalid("max_seconds must be 1 to \(Self.streamLifetime)")
            }
            lifetime = seconds
        }
        let (application, credentialID) = try await authorize(
            caller, method: "GET", operation: .approvalEvents, applicationID: applicationID, userID: userID)
        let approvals = self
        let deadline = ContinuousClock.now + .seconds(lifetime)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                // A server shutting down ends the stream (the client reconnects elsewhere).
                let stopping = ShutdownFlag()
                try await withGracefulShutdownHandler {
                    var sent = Set<String>()
                    var polls = 0
                    while ContinuousClock.now < deadline, !Task.isCancelled, !stopping.isSet {
                        let pending = try await approvals.approvals(
                            application: application, userID: userID)
                        for approval in pending where sent.insert(approval.transactionID).inserted {
                            try await writer.write(ByteBuffer(string: try Self.event(approval)))
                        }
                        polls += 1
                        if polls % Self.heartbeatEvery == 0 {
                            // A device whose passkey was deleted hears nothing more.
                            guard
                                try await approvals.deviceProofs.stillValid(
                                    application: application, credentialID: credentialID, userID: userID)
                            else { break }
                            try await writer.write(ByteBuffer(string: ": alive\n\n"))
                        }
                        do {
                            try await Task.sleep(for: Self.pollInterval)
                        } catch {
                            break
                        }
                    }
                } onGracefulShutdown: {
                    stopping.set()
                }
                try await writer.finish(nil)
            })
    }

    /// A caller without a device proof is refused before its request is judged.
    @Sendable static func requireProof(_ caller: Caller) throws {
        guard caller.deviceProof != nil else {
            throw ServiceError.unauthenticated("Send a device proof: Authorization: UMFA-Device <JWT>")
        }
    }

    /// One SSE event: `id` the transaction, `event: approval`, `data` the approval's JSON.
    static func event(_ approval: PendingApproval) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = String(decoding: try encoder.encode(approval), as: UTF8.self)
        return "id: \(approval.transactionID)\nevent: approval\ndata: \(data)\n\n"
    }

    /// The application and the proof's credential, once the device proof shows a device key of `userID`.
    private func authorize(
        _ caller: Caller, method: String, operation: APIOperation, applicationID: String, userID: String
    ) async throws -> (ApplicationRecord, [UInt8]) {
        try FieldRules.checkUserID(userID)
        let application = try await store.application(applicationID)
        let credentialID = try await deviceProofs.verify(
            caller, method: method, path: operation.path, application: application, userID: userID)
        return (application, credentialID)
    }

    /// The user's pending approvals with their links' payloads.
    func approvals(application: ApplicationRecord, userID: String) async throws -> [PendingApproval] {
        try await store.pendingApprovals(applicationID: application.id, userID: userID, at: now())
            .compactMap { transaction in
                guard let sealed = transaction.sealedDispatchToken else { return nil }
                let token = try self.sealed.open(sealed, for: .dispatchToken)
                return PendingApproval(
                    transactionID: transaction.transactionID, message: transaction.message ?? "",
                    createdAt: Timestamps.rfc3339(transaction.createdAt),
                    expiresAt: Timestamps.rfc3339(transaction.expiresAt),
                    dispatchTokenResponse: try OutOfBandLinks.dispatchTokenResponse(
                        OutOfBandLinks.payload(transaction, token: token, publicURL: publicURL)))
            }
    }
}

/// Set once when the server begins a graceful shutdown.
private final class ShutdownFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
