import Foundation
import Hummingbird
import Logging
import Prometheus
import UMFAStorage
import UMFATokens

/// What the first start created and must be shown once: the generated admin token and the
/// development application's API key. Nothing here is ever logged.
package struct StartupReport: Sendable {
    /// The admin token generated on first start, or `nil` when it existed or was given.
    package var generatedAdminToken: String?
    /// Whether this start deleted a generated admin token because `UMFA_ADMIN_TOKEN` is set: a
    /// later start without the variable generates a new one.
    package var retiredGeneratedAdminToken = false
    /// The development application created on a fresh database.
    package var defaultApplicationID: UUID?
    /// Its API key.
    package var defaultApplicationAPIKey: String?
    /// Applications with the `open` enrollment policy, to warn about.
    package var openApplications: [String]
    /// What drains the instance on SIGTERM: `umfa serve` runs it after the application in its
    /// service group, so it hears of the shutdown first (docs/operators/probes.md).
    package var drain: DrainService?
}

/// Builds the UMFA server: storage, keys, bootstrap and routes. Tests call it with a
/// temporary data directory and port 0; `umfa serve` runs what it returns.
package func buildApplication(configuration: ServerConfiguration, logger: Logger) async throws -> (
    some ApplicationProtocol, StartupReport
) {
    try FileManager.default.createDirectory(
        at: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let registry = PrometheusCollectorRegistry()
    let metrics = ServerMetrics(registry: registry)
    let validationCache = ValidationCache(
        lifetime: configuration.validationCacheLifetime.timeInterval, now: configuration.now)
    let served = try await StoreFactory.open(configuration.resolvedDatabase, logger: logger)
        .observed(by: StoreObservers(observers: [metrics, validationCache]), tracing: ServerTracing.isOn)
    let store = served.store
    do {
        let (features, report) = try await served.starting {
            try await ServerComposition.prepare(
                store: store, configuration: configuration, metrics: metrics, validationCache: validationCache,
                logger: logger)
        }
        let router = Router(context: UMFARequestContext.self)
        // First, so the span holds every other middleware and every answer, errors included.
        if ServerTracing.isOn { router.add(middleware: RequestTracingMiddleware()) }
        if let tls = configuration.tls {
            router.add(middleware: StrictTransportSecurityMiddleware(policy: tls.strictTransportSecurity))
        }
        router.add(
            middleware: RequestScopeMiddleware(
                trustForwardedFor: configuration.trustForwardedFor,
                bodyReadTimeout: configuration.bodyReadTimeout))
        router.add(middleware: ClientCertificateHeaderMiddleware(settings: configuration.mutualTLS, logger: logger))
        Routes(
            features: features, metrics: registry, demoRoutes: configuration.demoRoutes,
            metricsToken: configuration.metricsToken
        ).install(on: router)
        let listeners = try Listeners(configuration: configuration)
        let app = Application(
            router: router,
            server: listeners.main,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "UMFA"),
            // The pool first: the group stops services in reverse order, so it stops last.
            services: (served.pool.map { [$0] } ?? []) + [
                StoreLifecycle(store: store),
                ExpiryPurge(
                    store: store, now: configuration.now, logger: logger,
                    auditRetention: configuration.auditRetention),
                AbuseSweep(abuse: features.abuse, logger: logger),
                features.webhookDispatcher, features.logoutDispatcher,
            ] + (features.mailDispatcher.map { [$0] } ?? []) + listeners.services(router: router, logger: logger),
            logger: logger)
        var started = report
        started.drain = DrainService(readiness: features.readiness, period: configuration.drainPeriod, logger: logger)
        return (app, started)
    } catch {
        try? await store.close()
        throw error
    }
}
