import Foundation
import Prometheus
import Synchronization
import UMFAStorage
import UMFATokens

/// What an operator watches beside the request counts of ``RequestMetricsMiddleware``, into the
/// registry `/metrics` exposes. Every label takes values from a fixed set (kinds, outcomes,
/// algorithms, statement labels), never a user id or a token.
struct ServerMetrics: StoreQueryObserver {
    let registry: PrometheusCollectorRegistry
    /// The histograms of every statement and signature, each looked up in the registry once:
    /// the registry builds the metric's name and labels on every lookup, and each login runs
    /// about ten statements.
    private let statements = Memo<DurationHistogram>()
    private let signatures = Memo<DurationHistogram>()

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Buckets for operations of well under a millisecond to a few seconds.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25),
        .milliseconds(100), .milliseconds(500), .seconds(2),
    ]

    /// A WebAuthn ceremony ended: `ceremony` is `registration` or the purpose of an assertion
    /// (`sign_in`, `unenroll`, `approval`, …); `outcome` is `succeeded` or `failed`.
    func ceremony(_ ceremony: String, succeeded: Bool) {
        registry.makeCounter(
            descriptor: Self.name("ceremonies", "total", "WebAuthn ceremonies by kind and outcome"),
            labels: [("ceremony", ceremony), ("outcome", succeeded ? "succeeded" : "failed")]
        ).increment()
    }

    /// A token endpoint request ended: the grant type (or `other`) and `issued` or the RFC 6749
    /// error code.
    func grant(_ grantType: String?, outcome: String) {
        let known: Set<String> = [
            "authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code",
        ]
        let type = grantType.flatMap { known.contains($0) ? $0 : nil } ?? "other"
        registry.makeCounter(
            descriptor: Self.name("oauth_grants", "total", "Token endpoint requests by grant type and outcome"),
            labels: [("grant_type", type), ("outcome", outcome)]
        ).increment()
    }

    /// A client authentication was refused, by reason (``ClientAuthenticationRefusal``).
    func clientAuthenticationRefused(_ reason: String) {
        registry.makeCounter(
            descriptor: Self.name(
                "client_authentication_refusals", "total", "Refused OAuth client authentications by reason"),
            labels: [("reason", reason)]
        ).increment()
    }

    /// A presented token was refused, by endpoint and reason (``TokenRefusal``).
    func tokenRefused(endpoint: String, reason: String) {
        registry.makeCounter(
            descriptor: Self.name("token_refusals", "total", "Refused access and login tokens by endpoint and reason"),
            labels: [("endpoint", endpoint), ("reason", reason)]
        ).increment()
    }

    /// A token was signed.
    func signature(_ algorithm: TokenSigningAlgorithm, duration: Duration) {
        signatures.metric(algorithm.rawValue) {
            registry.makeDurationHistogram(
                descriptor: Self.name("token_signing_duration", "seconds", "Token signatures by algorithm"),
                labels: [("alg", algorithm.rawValue)], buckets: Self.buckets)
        }.record(duration)
    }

    /// A webhook delivery ended: `delivered`, `retried` or `dropped`.
    func webhook(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name("webhook_deliveries", "total", "Webhook delivery attempts by outcome"),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// A logout token's delivery ended (Back-Channel Logout 1.0): `delivered`, `retried` or
    /// `dropped`.
    func logoutToken(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name("logout_token_deliveries", "total", "Logout token delivery attempts by outcome"),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// A mail delivery ended: `sent`, `retried` or `dropped`.
    func mail(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name("mail_deliveries", "total", "Mail delivery attempts by outcome"),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// How many messages wait in the mail outbox, as last read.
    func mailPending(_ count: Int) {
        registry.makeGauge(descriptor: Self.name("mail_outbox", "messages", "Messages waiting in the mail outbox"))
            .set(Int64(count))
    }

    /// The FIDO metadata BLOB held (docs/operators/metadata.md): its serial number `no`, the
    /// seconds since it was downloaded and verified, and its `nextUpdate` (midnight UTC).
    func metadataHeld(serial: Int, age: TimeInterval, nextUpdate: Date?) {
        registry.makeGauge(
            descriptor: Self.name("metadata_blob", "serial", "Serial number (no) of the FIDO metadata BLOB held")
        ).set(Int64(serial))
        registry.makeGauge(
            descriptor: Self.name(
                "metadata_blob_age", "seconds", "Seconds since the FIDO metadata BLOB held was downloaded and verified")
        ).set(age.rounded())
        if let nextUpdate {
            registry.makeGauge(
                descriptor: Self.name(
                    "metadata_blob_next_update", "timestamp_seconds", "nextUpdate of the FIDO metadata BLOB held")
            ).set(Int64(nextUpdate.timeIntervalSince1970))
        }
    }

    /// Downloads of the FIDO metadata BLOB that were refused, by reason (`download`,
    /// `verification`, `older`); `count` 0 only makes the series known.
    func metadataRefreshFailed(_ reason: String, count: Int) {
        registry.makeCounter(
            descriptor: Self.name(
                "metadata_refresh_failures", "total", "FIDO metadata downloads refused, the last good BLOB kept"),
            labels: [("reason", reason)]
        ).increment(by: Int64(count))
    }

    func statementFinished(_ statement: StoreStatement, duration: Duration, failed: Bool) {
        statements.metric(statement.label) {
            registry.makeDurationHistogram(
                descriptor: Self.name("store_query_duration", "seconds", "Store statements by verb and table"),
                labels: [("statement", statement.label)], buckets: Self.buckets)
        }.record(duration)
        if failed {
            registry.makeCounter(
                descriptor: Self.name("store_query_errors", "total", "Store statements that failed"),
                labels: [("statement", statement.label)]
            ).increment()
        }
    }

    /// `umfa_<metric>_<unit>` with its help text.
    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "umfa", metricName: metric, unitName: unit, helpText: help)
    }
}

/// Metrics by one label value from a fixed set (statement labels, algorithms), made once.
private final class Memo<Metric: Sendable>: Sendable {
    private let metrics = Mutex<[String: Metric]>([:])

    func metric(_ key: String, make: () -> Metric) -> Metric {
        metrics.withLock { metrics in
            if let metric = metrics[key] { return metric }
            let metric = make()
            metrics[key] = metric
            return metric
        }
    }
}
