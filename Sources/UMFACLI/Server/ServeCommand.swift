import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UMFAServer
import UMFAWebAuthn

/// `umfa serve`: runs the authenticator server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the UMFA authenticator server.",
        discussion: """
            Environment: UMFA_HOST, UMFA_PORT, UMFA_DATABASE_URL, UMFA_DATA_DIR, UMFA_ADMIN_TOKEN \
            (used as given; generated and printed once when unset), UMFA_MASTER_KEY (32 random bytes \
            in base64; a generated key file of mode 0600 in the data dir when unset), UMFA_METADATA_FILE \
            (a FIDO MDS3 metadata BLOB, as --metadata), UMFA_METADATA_URL (the same BLOB downloaded \
            and refreshed, docs/operators/metadata.md), UMFA_METRICS_TOKEN (as --metrics-token), and the \
            rest in docs/operators/configuration.md. The same settings may come from --config FILE; flags win over the \
            environment, which wins over the file. A value that does not parse stops the start with a \
            message naming it. Traces go to an OpenTelemetry collector when the standard OTEL_* \
            variables ask for them (docs/operators/tracing.md).
            """
    )

    @Option(help: "The address to listen on (env UMFA_HOST).")
    var host: String?

    @Option(help: "The port to listen on (env UMFA_PORT).")
    var port: Int?

    @Option(help: "sqlite:///path/file.sqlite or postgres://user:pass@host:port/db (env UMFA_DATABASE_URL).")
    var database: String?

    @Option(name: .customLong("data-dir"), help: "The data directory (env UMFA_DATA_DIR); ./.umfa by default.")
    var dataDir: String?

    @Option(
        help:
            "A FIDO Metadata Service (MDS3) BLOB file, verified at start to GlobalSign Root CA - R3 unless UMFA_METADATA_ROOT names another (env UMFA_METADATA_FILE)."
    )
    var metadata: String?

    @Option(
        name: .customLong("metrics-token"),
        help: ArgumentHelp(
            "The bearer token /metrics asks for (env UMFA_METRICS_TOKEN, better than a flag other users can see in ps); without one, /metrics answers only callers on this machine.",
            valueName: "token"))
    var metricsToken: String?

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "The URL clients reach this server at, the base of every OpenID Connect issuer (env UMFA_PUBLIC_URL); http://host:port by default, https:// with TLS.",
            valueName: "url"))
    var publicURL: String?

    @Option(
        name: .customLong("tls-certificate"),
        help: ArgumentHelp(
            "Serve HTTPS with this certificate: PEM, the leaf first, then any intermediates (env UMFA_TLS_CERTIFICATE); reloaded on SIGHUP and when the file changes.",
            valueName: "pem"))
    var tlsCertificate: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp(
            "The certificate's private key, PEM (env UMFA_TLS_KEY); reloaded with it.", valueName: "pem"))
    var tlsKey: String?

    @Option(
        name: .customLong("mtls-port"),
        help: ArgumentHelp(
            "Also listen here for the mutual-TLS endpoint aliases (RFC 8705 §5): token, PAR, introspection, revocation and UserInfo, asking for a client certificate (env UMFA_MTLS_PORT; needs TLS).",
            valueName: "port"))
    var mtlsPort: Int?

    @Option(
        name: .customLong("mtls-base-url"),
        help: ArgumentHelp(
            "The URL clients reach the mutual-TLS listener at, for discovery's mtls_endpoint_aliases (env UMFA_MTLS_BASE_URL); https://<public host>:<mtls port> by default.",
            valueName: "url"))
    var mtlsBaseURL: String?

    @Option(
        help: ArgumentHelp(
            "A JSON file of settings, keys as the UMFA_ variables without the prefix ({\"port\": 8443}); flags and the environment win over it.",
            valueName: "file"))
    var config: String?

    @Flag(
        name: .customLong("no-default-app"),
        help: "Do not create the development application on a fresh database, nor serve the demo routes.")
    var noDefaultApp = false

    func run() async throws {
        // The server's tasks run on its event loops rather than on a second pool of threads:
        // a request then no longer hops between the two, which cost a tenth of the server's CPU
        // in context switches (measured with scripts/bench.sh). Nothing in the server blocks a thread.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        var flags: [ServerSetting: String] = [:]
        flags[.host] = host
        flags[.port] = port.map(String.init)
        flags[.databaseURL] = database
        flags[.dataDirectory] = dataDir
        flags[.metadataFile] = metadata
        flags[.metricsToken] = metricsToken
        flags[.publicURL] = publicURL
        flags[.tlsCertificate] = tlsCertificate
        flags[.tlsKey] = tlsKey
        flags[.mtlsPort] = mtlsPort.map(String.init)
        flags[.mtlsBaseURL] = mtlsBaseURL
        // A bad value from any source stops the start with a ConfigurationError naming it (exit 1).
        let settings = SettingsReader(
            flags: flags, environment: ProcessInfo.processInfo.environment,
            file: try config.map(SettingsReader.fileSettings(at:)) ?? [:], fileName: config ?? "")
        var configuration = ServerConfiguration()
        try configuration.apply(settings)
        configuration.createDefaultApplication = !noDefaultApp
        configuration.demoRoutes = !noDefaultApp
        if let file = settings.string(.metadataFile) {
            configuration.attestationAnchors = .wellKnown(
                metadata: try await MetadataFile.load(file, root: configuration.metadata.root))
        }
        let displayHost =
            configuration.host == "0.0.0.0" || configuration.host == "127.0.0.1" ? "localhost" : configuration.host
        // With TLS on, the server's own URL, and so the default public URL, is https.
        let scheme = configuration.tls == nil ? "http" : "https"
        configuration.publicOrigin = "\(scheme)://\(displayHost):\(configuration.port)"

        let tracing = try TracingSettings(environment: ProcessInfo.processInfo.environment)
        var logger = Logger.server(
            label: "umfa", metadataProvider: tracing.enabled ? TracingBootstrap.logMetadata : nil)
        logger.logLevel =
            try settings.string(.logLevel).map { text in
                guard let level = Logger.Level(rawValue: text) else {
                    throw ConfigurationError(
                        "UMFA_LOG_LEVEL must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\""
                    )
                }
                return level
            } ?? .info
        // Before the application is built: it adds its spans only when a tracer is installed.
        let exporter = try TracingBootstrap.start(tracing, logger: logger)
        let (app, report) = try await buildApplication(configuration: configuration, logger: logger)
        StartupPrinter.print(report, configuration: configuration, logger: logger)
        if let index = configuration.attestationAnchors.metadata {
            MetadataLog.loaded(index, source: "file", logger: logger, now: Date())
        }
        // UMFA_METADATA_URL: the stored BLOB, then the first download (10 s at most) before
        // serving; without either the server starts with no metadata and retries
        // (docs/operators/metadata.md).
        await configuration.metadataRefresh?.loadAtStart(logger: logger)
        let metadataServices: [any Service] = configuration.metadataRefresh.map { [$0.service(logger: logger)] } ?? []
        // The drain service last: the group stops services in reverse order, so it hears of
        // SIGTERM first and keeps the application serving, not ready, for UMFA_DRAIN_SECONDS;
        // the trace exporter first, so it sends the last spans after the application stopped.
        let group = ServiceGroup(
            configuration: .init(
                services: metadataServices + (exporter.map { [$0] } ?? []) + [app] + (report.drain.map { [$0] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// What `umfa serve` prints once on start. Secrets go to standard output only, never to the log.
enum StartupPrinter {
    static func print(_ report: StartupReport, configuration: ServerConfiguration, logger: Logger) {
        var lines: [String] = []
        if let token = report.generatedAdminToken {
            lines.append("Admin token (shown once, stored hashed): \(token)")
        }
        if let id = report.defaultApplicationID, let key = report.defaultApplicationAPIKey {
            lines.append(
                "Development application (policy open, rp_id localhost, origin \(configuration.publicOrigin ?? "")):")
            lines.append("  application_id: \(id.uuidString.lowercased())")
            lines.append("  api_key (shown once, stored hashed): \(key)")
        }
        if !lines.isEmpty {
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        if report.retiredGeneratedAdminToken {
            logger.notice(
                "the generated admin token is retired for good because UMFA_ADMIN_TOKEN is set; a start without UMFA_ADMIN_TOKEN generates a new one and shows it once"
            )
        }
        for application in report.openApplications {
            logger.warning(
                "application uses the open enrollment policy: whoever first names a user_id can enroll it; use grant in production",
                metadata: ["application": .string(application)])
        }
    }
}
