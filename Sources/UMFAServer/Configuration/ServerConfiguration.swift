import Foundation
import NIOSSL
import UMFAWebAuthn

/// Everything `umfa serve` can be told, from flags or the environment (docs/contract.md §3).
package struct ServerConfiguration: Sendable {
    /// Where the data lives.
    package enum Database: Sendable, Equatable {
        /// An SQLite file.
        case sqlite(path: String)
        /// A PostgreSQL URL.
        case postgres(url: String)

        /// Parses `sqlite:///path/file.sqlite` or `postgres://user:pass@host:port/db`.
        package static func parse(_ text: String) throws -> Database {
            if text.hasPrefix("sqlite://") {
                let path = String(text.dropFirst("sqlite://".count))
                guard !path.isEmpty else {
                    throw ConfigurationError("the SQLite URL has no path: use sqlite:///path/file.sqlite")
                }
                return .sqlite(path: path)
            }
            if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") { return .postgres(url: text) }
            throw ConfigurationError(
                "--database must be sqlite:///path/file.sqlite or postgres://user:pass@host:port/db")
        }
    }

    /// The address to listen on.
    package var host: String
    /// The port to listen on; 0 picks a free one.
    package var port: Int
    /// The data directory (master key file, default SQLite file).
    package var dataDirectory: URL
    /// The database; `nil` means `<data dir>/umfa.sqlite`.
    package var database: Database?
    /// The admin token as given (`UMFA_ADMIN_TOKEN`); `nil` generates one on first start.
    package var adminToken: String?
    /// The master key in base64 (`UMFA_MASTER_KEY`); `nil` uses a key file in the data dir.
    package var masterKey: String?
    /// The login token issuer.
    package var issuer: String
    /// Whether a fresh database gets a development application.
    package var createDefaultApplication: Bool
    /// The server's own origin for the development application; derived from host and port.
    package var publicOrigin: String?
    /// The URL clients reach the server at (`UMFA_PUBLIC_URL`): the base of every OpenID Connect
    /// issuer (`<public URL>/oidc/<application_id>`); `nil` uses the server's own address.
    package var publicURL: String?
    /// How long challenges are accepted.
    package var challengeLifetime: Duration
    /// How soon a signing key rotated on another instance is used here.
    package var signingKeyRefreshInterval: Duration = .seconds(10)
    /// How long validate-token trusts what it read of an API key's application and a login
    /// token's credential (`UMFA_VALIDATION_CACHE_SECONDS`, default 5, `0` off): the longest a
    /// deletion made on another instance goes unseen here. Changes made through this instance
    /// are seen at once.
    package var validationCacheLifetime: Duration = .seconds(5)
    /// The clock for challenges, enrollment tokens and login tokens; tests inject a fixed one.
    package var now: @Sendable () -> Date
    /// Whether the demo page names the development application (it then works at `/` without
    /// `?app=`); `umfa serve --no-default-app` turns it off.
    package var demoRoutes = true
    /// The abuse limits (429 with `Retry-After`).
    package var abuseLimits = AbuseLimits()
    /// Whether the client address is the last `X-Forwarded-For` entry (behind a reverse proxy
    /// that sets it) instead of the connected peer.
    package var trustForwardedFor = false
    /// The bearer token `/metrics` asks for (`UMFA_METRICS_TOKEN`), compared in constant time
    /// and never logged; `nil` serves `/metrics` only to callers on this machine (a loopback
    /// peer, no `X-Forwarded-For` or `Forwarded` header).
    package var metricsToken: String?
    /// A connection that sends nothing for this long — between requests, or before a request's
    /// head is complete — is closed. Longer than the keep-alive of common HTTP clients, so a
    /// client rarely sends on a connection the server is closing.
    package var idleTimeout: Duration = .seconds(120)
    /// A request body must arrive in full within this time, else 408.
    package var bodyReadTimeout: Duration = .seconds(10)
    /// How long audit events are kept (`UMFA_AUDIT_RETENTION_DAYS`, default 90 days).
    package var auditRetention: Duration = .seconds(90 * 86_400)
    /// Push services told of each approval for a named user (docs/contract.md §7); none by default.
    package var approvalDispatchers: [any ApprovalDispatcher] = []
    /// How long one webhook delivery may take (`UMFA_WEBHOOK_TIMEOUT_SECONDS`, default 10).
    package var webhookTimeout: Duration = .seconds(10)
    /// The PKCS #11 module signing keys may live in (`UMFA_PKCS11_MODULE`), and the file with
    /// its token's user PIN (`UMFA_PKCS11_PIN_FILE`); docs/operators/hsm.md.
    package var pkcs11Module: String?
    package var pkcs11PinFile: String?
    /// How long the server keeps serving after SIGTERM while `/health/ready` answers 503
    /// (`UMFA_DRAIN_SECONDS`, default 0: it stops at once, finishing the requests under way).
    package var drainPeriod: Duration = .zero
    /// Client certificates (RFC 8705): a trusted proxy's header and the `tls_client_auth` CAs.
    package var mutualTLS = MutualTLSSettings()
    /// The mail server (`UMFA_SMTP_URL` and its companions); `nil` turns mail features off.
    package var mail: MailSettings?
    /// The attestation roots registrations are judged against: UMFA's shipped public roots,
    /// plus FIDO metadata when `umfa serve --metadata` (or `UMFA_METADATA_FILE`) loaded a BLOB.
    package var attestationAnchors = AttestationTrustAnchors.wellKnown()
    /// Where FIDO metadata is downloaded from and how it is checked (`UMFA_METADATA_URL`,
    /// `UMFA_METADATA_ROOT`, `UMFA_METADATA_CA`); docs/operators/metadata.md.
    package var metadata = MetadataSettings()
    /// The download of `UMFA_METADATA_URL` on its schedule, whose index ``attestationAnchors``
    /// reads; `nil` without the URL.
    package var metadataRefresh: MetadataRefresh?
    /// Extra CAs for the https documents of pairwise clients' `sector_identifier_uri`
    /// (`UMFA_SECTOR_IDENTIFIER_CA_FILE`); the system's CAs are trusted either way.
    package var sectorIdentifierTrustRoots: [NIOSSLCertificate] = []
    /// HTTPS served by UMFA (`UMFA_TLS_CERTIFICATE`, `UMFA_TLS_KEY`) and the mutual-TLS alias
    /// listener; `nil` (the default) serves plain HTTP.
    package var tls: TLSServing?

    /// Creates a configuration with the documented defaults.
    package init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL = URL(fileURLWithPath: ".umfa"),
        database: Database? = nil, adminToken: String? = nil, masterKey: String? = nil,
        issuer: String = "UMFA::Authenticator", createDefaultApplication: Bool = true, publicOrigin: String? = nil,
        challengeLifetime: Duration = .seconds(300), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.database = database
        self.adminToken = adminToken
        self.masterKey = masterKey
        self.issuer = issuer
        self.createDefaultApplication = createDefaultApplication
        self.publicOrigin = publicOrigin
        self.challengeLifetime = challengeLifetime
        self.now = now
    }

    /// Applies `UMFA_LIMIT_*` (see ``AbuseLimits/from(_:)``),
    /// `UMFA_TRUST_FORWARDED_FOR=1`, `UMFA_IDLE_TIMEOUT_SECONDS` and `UMFA_BODY_TIMEOUT_SECONDS`.
    package mutating func applyHardening(environment: [String: String]) throws {
        try apply(SettingsReader(environment: environment))
    }

    /// Applies every setting ``SettingsReader`` knows, from whichever source gives it; a bad
    /// value throws a ``ConfigurationError`` naming the setting and its source.
    package mutating func apply(_ settings: SettingsReader) throws {
        host = settings.string(.host) ?? host
        port = try settings.integer(.port, in: 0...65_535) ?? port
        if let directory = settings.string(.dataDirectory) { dataDirectory = URL(fileURLWithPath: directory) }
        if let url = settings.string(.databaseURL) { database = try Database.parse(url) }
        adminToken = settings.string(.adminToken) ?? adminToken
        masterKey = settings.string(.masterKey) ?? masterKey
        abuseLimits = try AbuseLimits.from(settings)
        trustForwardedFor = try settings.flag(.trustForwardedFor) ?? trustForwardedFor
        mutualTLS = try MutualTLSSettings.from(settings)
        if let path = settings.string(.sectorIdentifierCAFile) {
            guard let roots = try? NIOSSLCertificate.fromPEMFile(path), !roots.isEmpty else {
                throw ConfigurationError("UMFA_SECTOR_IDENTIFIER_CA_FILE: \(path) holds no readable PEM certificate")
            }
            sectorIdentifierTrustRoots = roots
        }
        metadata = try MetadataSettings.from(settings)
        metadataRefresh = try Self.metadataRefresh(
            metadata, dataDirectory: dataDirectory, anchors: &attestationAnchors, now: now)
        mail = try MailSettings.from(settings) ?? mail
        if let mail { _ = try MailTemplates(directory: mail.templatesDirectory) }
        metricsToken = settings.string(.metricsToken) ?? metricsToken
        if let url = settings.string(.publicURL) { publicURL = try Self.checkedPublicURL(url) }
        idleTimeout = try settings.duration(.idleTimeoutSeconds, seconds: 0.001...3600) ?? idleTimeout
        bodyReadTimeout = try settings.duration(.bodyTimeoutSeconds, seconds: 0.001...3600) ?? bodyReadTimeout
        if let days = try settings.integer(.auditRetentionDays, in: 1...36_500) {
            auditRetention = .seconds(days * 86_400)
        }
        if let seconds = try settings.integer(.webhookTimeoutSeconds, in: 1...60) {
            webhookTimeout = .seconds(seconds)
        }
        pkcs11Module = settings.string(.pkcs11Module) ?? pkcs11Module
        pkcs11PinFile = settings.string(.pkcs11PinFile) ?? pkcs11PinFile
        if let seconds = try settings.integer(.drainSeconds, in: 0...300) {
            drainPeriod = .seconds(seconds)
        }
        signingKeyRefreshInterval =
            try settings.duration(.signingKeyRefreshSeconds, seconds: 0.001...86_400)
            ?? signingKeyRefreshInterval
        if let seconds = try settings.integer(.validationCacheSeconds, in: 0...300) {
            validationCacheLifetime = .seconds(seconds)
        }
        try applyTLS(settings)
    }

    /// An absolute http(s) URL without query or fragment, kept without a trailing slash.
    static func checkedPublicURL(_ text: String) throws -> String {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false, url.query == nil, url.fragment == nil
        else {
            throw ConfigurationError(
                "UMFA_PUBLIC_URL must be an absolute http or https URL without query or fragment, not \"\(text)\"")
        }
        var result = text
        while result.hasSuffix("/") { result.removeLast() }
        return result
    }

    /// The SQLite path in use when no database was named.
    package var resolvedDatabase: Database {
        database ?? .sqlite(path: dataDirectory.appendingPathComponent("umfa.sqlite").path)
    }
}

/// A configuration that cannot be used; the message says what to change.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    package let description: String

    /// Creates an error.
    package init(_ description: String) { self.description = description }
}
