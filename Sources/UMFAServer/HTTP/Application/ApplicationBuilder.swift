import Foundation
import Hummingbird
import Logging
import Prometheus
import UMFAStorage
import UMFATokens

/// What the first start created and must be shown once: the generated admin token and the
/// development application's API key. Nothing here is ever logged.
public struct StartupReport: Sendable {
    /// The admin token generated on first start, or `nil` when it existed or was given.
    public var generatedAdminToken: String?
    /// Whether this start deleted a generated admin token because `UMFA_ADMIN_TOKEN` is set: a
    /// later start without the variable generates a new one.
    public var retiredGeneratedAdminToken = false
    /// The development application created on a fresh database.
    public var defaultApplicationID: UUID?
    /// Its API key.
    public var defaultApplicationAPIKey: String?
    /// Applications with the `open` enrollment policy, to warn about.
    public var openApplications: [String]
}

/// Builds the UMFA server: storage, keys, bootstrap and routes. Tests call it with a
/// temporary data directory and port 0; `umfa serve` runs what it returns.
public func buildApplication(configuration: ServerConfiguration, logger: Logger) async throws -> (
    some ApplicationProtocol, StartupReport
) {
    try FileManager.default.createDirectory(
        at: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let registry = PrometheusCollectorRegistry()
    let metrics = ServerMetrics(registry: registry)
    let validationCache = ValidationCache(
        lifetime: configuration.validationCacheLifetime.timeInterval, now: configuration.now)
    let served = try await StoreFactory.open(configuration.resolvedDatabase, logger: logger)
        .observed(by: StoreObservers(observers: [metrics, validationCache]))
    let store = served.store
    do {
        let (features, report) = try await served.starting {
            try await prepare(
                store: store, configuration: configuration, metrics: metrics, validationCache: validationCache,
                logger: logger)
        }
        let router = Router(context: UMFARequestContext.self)
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
                features.webhookDispatcher,
            ] + listeners.services(router: router, logger: logger), logger: logger)
        return (app, report)
    } catch {
        try? await store.close()
        throw error
    }
}

/// Keys, secrets and first-start work, before any route exists.
private func prepare(
    store: any UMFAStore, configuration: ServerConfiguration, metrics: ServerMetrics,
    validationCache: ValidationCache, logger: Logger
) async throws -> (ServerComposition, StartupReport) {
    let masterKey =
        try configuration.masterKey.map { try MasterKey(base64: $0) }
        ?? MasterKey.loadOrCreate(in: configuration.dataDirectory)
    let tokens = TokenService(
        store: store, masterKey: masterKey, issuer: configuration.issuer,
        refreshInterval: configuration.signingKeyRefreshInterval,
        now: configuration.now, signatureObserver: { metrics.signature($0, duration: $1) })
    try await tokens.loadKeys()
    logger.info("RS256 signatures by \(RS256Signer.buildLibrary)")
    var (report, adminTokenHash, serverSecret) = try await Bootstrap(store: store, configuration: configuration)
        .run()
    let publicURL = configuration.publicURL ?? configuration.publicOrigin ?? defaultPublicURL(configuration)
    let features = ServerComposition(
        .init(
        store: store, tokens: tokens, serverSecret: serverSecret, sealed: SealedSecrets(masterKey: masterKey),
        adminToken: AdminToken(hash: adminTokenHash),
        challengeLifetime: configuration.challengeLifetime.timeInterval, now: configuration.now, logger: logger,
        abuse: AbuseGuard(
            limits: configuration.abuseLimits, failures: failureCounts(store: store, configuration: configuration),
            now: configuration.now, logger: logger),
        attestationAnchors: configuration.attestationAnchors, approvalDispatchers: configuration.approvalDispatchers,
        publicURL: publicURL,
        metrics: metrics, validationCache: validationCache, mutualTLSAnchors: configuration.mutualTLS.trustAnchors,
        mutualTLSAliasURL: configuration.tls?.aliasBaseURL(publicURL: publicURL),
        webhookTimeout: configuration.webhookTimeout))
    report.openApplications = try await store.applications().filter { $0.enrollmentPolicy == .open }.map {
        "\($0.name) (\($0.id.uuidString.lowercased()))"
    }
    try await ExpiryPurge(
        store: store, now: configuration.now, logger: logger, auditRetention: configuration.auditRetention
    ).purge()
    // Operator passkeys of an earlier admin token end now (issue 34 item 3).
    try await features.consoleTokenEpoch.enforce()
    return (features, report)
}

/// The server's own `http://host:port` (docs/contract.md §5; `https` when it serves TLS), with a
/// wildcard address named `localhost`.
private func defaultPublicURL(_ configuration: ServerConfiguration) -> String {
    let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "localhost" : configuration.host
    let scheme = configuration.tls == nil ? "http" : "https"
    return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(configuration.port)"
}

/// Where failures are counted: in the database when instances may share it (PostgreSQL), in
/// memory for the one instance an SQLite file serves.
private func failureCounts(store: any UMFAStore, configuration: ServerConfiguration) -> any FailureCounts {
    switch configuration.database {
    case .sqlite, nil: LocalFailureCounts(limits: configuration.abuseLimits)
    case .postgres: SharedFailureCounts(store: store, limits: configuration.abuseLimits)
    }
}

/// Opens the configured storage engine; PostgreSQL's pool is then run by the service group.
enum StoreFactory {
    static func open(_ database: ServerConfiguration.Database, logger: Logger) async throws -> ServedStore {
        switch database {
        case .sqlite(let path):
            return ServedStore(store: try await SQLiteStore.open(path: path, logger: logger))
        case .postgres(let url):
            return try PostgresStore.served(url: url, logger: logger)
        }
    }
}
