import Foundation
import Logging
import ServiceLifecycle
import Tracing
import UMFAStorage
import UMFATokens

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the logout-token outbox (OpenID Connect Back-Channel Logout 1.0 §2.5): every
/// ``interval`` it claims the due tokens (a lease of ``timeout`` plus five seconds, so instances
/// sharing a database never send one twice at once) and POSTs each beside the others, each
/// signed now with the application's key (`iat` now, `exp` two minutes on; the `jti` of every
/// attempt the same), as `logout_token` in a form body, to the URI the client registered, never
/// following a redirect. A 2xx answer removes the token; anything else is tried again after the
/// next step of ``OutboxRetry/backoff``, so one slow or failing client holds up no other.
struct BackchannelLogoutDispatcher: Service {
    let store: any LogoutOutboxStore & ApplicationStore & OAuthClientStore
    let tokens: TokenService
    /// Counts each delivery's outcome (`umfa_logout_token_deliveries_total`).
    let metrics: ServerMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    /// How long one delivery may take.
    var timeout: Duration = .seconds(5)
    var interval: Duration = .seconds(1)

    /// Tokens sent at once, per pass.
    static let batch = 20
    /// A logout token's lifetime (§2.4 recommends a short one).
    static let tokenLifetime = 120

    func run() async throws {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        // Each delivery runs beside the loop, so a pass never waits for a slow client: the next
        // pass sends what came due meanwhile.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        return
                    }
                    for delivery in await claimDue() {
                        group.addTask { await deliver(delivery, session: session) }
                    }
                }
            }
        }
        session.invalidateAndCancel()
    }

    /// Claims the due tokens, at most ``batch`` per pass.
    func claimDue() async -> [LogoutDeliveryRecord] {
        let now = self.now()
        do {
            return try await store.claimDueLogoutTokens(
                at: now, leaseUntil: now.addingTimeInterval(timeout.timeInterval + 5), limit: Self.batch)
        } catch {
            logger.warning("reading the logout outbox failed", metadata: ["error.message": .string("\(error)")])
            return []
        }
    }

    private func deliver(_ delivery: LogoutDeliveryRecord, session: URLSession) async {
        await ServerTracing.outbound("logout token POST", continuing: delivery.traceParent) { span in
            span.attributes["http.request.method"] = "POST"
            await deliverTraced(delivery, session: session, span: span)
        }
    }

    private func deliverTraced(_ delivery: LogoutDeliveryRecord, session: URLSession, span: any Span) async {
        do {
            guard let application = try await store.application(id: delivery.applicationID),
                let url = URL(string: delivery.uri), let host = url.host
            else {
                try await store.deleteLogoutToken(id: delivery.id)
                return
            }
            // A client that registered itself chose its URI: it gets nothing sent to the server's own
            // network, whatever its name resolves to now (``OutboundAddress``).
            if try await store.oauthClient(applicationID: application.id, clientID: delivery.clientID)?
                .isSelfRegistered ?? true, await !OutboundAddress.resolvesToPublicOnly(host)
            {
                logger.error(
                    "a logout token was not sent: the self-registered client's URI is not a public address",
                    metadata: ["logout_token_id": .string(delivery.id), "client_id": .string(delivery.clientID)])
                try await store.deleteLogoutToken(id: delivery.id)
                metrics.logoutToken("dropped")
                return
            }
            let token = try await tokens.sign(
                try claims(delivery), type: JWTType.logoutToken, algorithm: application.tokenSigningAlgorithm)
            var request = URLRequest(url: url, timeoutInterval: timeout.timeInterval)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.setValue("UMFA-Logout/1", forHTTPHeaderField: "User-Agent")
            request.setValue(TraceParent.current(), forHTTPHeaderField: "traceparent")
            request.httpBody = Data(("logout_token=" + AuthorizationFlow.encode(token)).utf8)
            let failure: String
            do {
                let status = try await post(request, session: session)
                ServerTracing.answered(span, status: status, host: url.host)
                if (200..<300).contains(status) {
                    try await store.deleteLogoutToken(id: delivery.id)
                    metrics.logoutToken("delivered")
                    return
                }
                failure = "the client answered HTTP \(status)"
            } catch {
                ServerTracing.answered(span, status: nil, host: url.host)
                failure = "the client could not be reached: \((error as NSError).localizedDescription)"
            }
            try await retry(delivery, failure: failure)
        } catch {
            logger.error(
                "a logout token could not be sent",
                metadata: ["logout_token_id": .string(delivery.id), "error.message": .string("\(error)")])
            try? await retry(delivery, failure: "the server could not send it")
        }
    }

    /// The status of `request`'s answer, or an error once ``timeout`` has passed, whatever the
    /// transport's own timeout does (it may count only idle time): the lease of the row outlives
    /// the attempt, so no other pass or instance sends it meanwhile.
    private func post(_ request: URLRequest, session: URLSession) async throws -> Int {
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                let (_, response) = try await session.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let status = try await group.next() ?? nil else {
                throw URLError(.timedOut)
            }
            return status
        }
    }

    /// The stored claims with this attempt's times.
    private func claims(_ delivery: LogoutDeliveryRecord) throws -> LogoutTokenClaims {
        let pending = try JSONDecoder().decode(BackchannelLogout.PendingClaims.self, from: Data(delivery.body.utf8))
        let iat = Int(now().timeIntervalSince1970)
        return LogoutTokenClaims(pending: pending, iat: iat, exp: iat + Self.tokenLifetime)
    }

    private func retry(_ delivery: LogoutDeliveryRecord, failure: String) async throws {
        let attempts = delivery.attempts + 1
        let metadata: Logger.Metadata = [
            "logout_token_id": .string(delivery.id), "client_id": .string(delivery.clientID),
            "attempts": .stringConvertible(attempts), "error.message": .string(failure),
        ]
        guard let next = OutboxRetry.next(after: attempts, from: now()) else {
            logger.error("a logout token was dropped after every retry", metadata: metadata)
            try await store.deleteLogoutToken(id: delivery.id)
            metrics.logoutToken("dropped")
            return
        }
        metrics.logoutToken("retried")
        logger.warning("a logout token will be sent again", metadata: metadata)
        try await store.rescheduleLogoutToken(
            id: delivery.id, claimedUntil: delivery.nextAttemptAt, attempts: attempts, nextAttemptAt: next,
            error: failure)
    }
}

/// A logout token's claims (Back-Channel Logout 1.0 §2.4): never a `nonce`.
struct LogoutTokenClaims: Encodable {
    let pending: BackchannelLogout.PendingClaims
    let iat: Int
    let exp: Int

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, sid, jti, events, iat, exp
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pending.iss, forKey: .iss)
        try container.encode(pending.aud, forKey: .aud)
        try container.encode(iat, forKey: .iat)
        try container.encode(exp, forKey: .exp)
        try container.encode(pending.jti, forKey: .jti)
        try container.encode(pending.sub, forKey: .sub)
        try container.encode(pending.sid, forKey: .sid)
        try container.encode(pending.events, forKey: .events)
    }
}
