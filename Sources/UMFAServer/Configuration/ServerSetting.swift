/// Every setting `umfa serve` reads, by its environment name; the configuration file's key is
/// the same name without `UMFA_`, in lower case (``fileKey``).
///
/// ``SettingsReader`` reads settings only through these cases, so a setting the server reads is
/// always one the configuration file accepts: adding a case is all it takes to make a new
/// setting known in every source.
package enum ServerSetting: String, CaseIterable, Sendable, Hashable {
    /// The address to listen on.
    case host = "UMFA_HOST"
    /// The port to listen on.
    case port = "UMFA_PORT"
    /// The database URL (`sqlite:///…` or `postgres://…`).
    case databaseURL = "UMFA_DATABASE_URL"
    /// The data directory.
    case dataDirectory = "UMFA_DATA_DIR"
    /// The admin token.
    case adminToken = "UMFA_ADMIN_TOKEN"
    /// The master key, 32 bytes in base64.
    case masterKey = "UMFA_MASTER_KEY"
    /// A FIDO MDS3 metadata BLOB file.
    case metadataFile = "UMFA_METADATA_FILE"
    /// The https URL of the FIDO MDS3 metadata BLOB, downloaded at start and again daily or by its
    /// `nextUpdate` (docs/operators/metadata.md); not together with ``metadataFile``.
    case metadataURL = "UMFA_METADATA_URL"
    /// A PEM file with the root the metadata BLOB's signing chain must end at, instead of the
    /// FIDO Alliance's (GlobalSign Root CA - R3).
    case metadataRoot = "UMFA_METADATA_ROOT"
    /// A PEM file of the CAs trusted for the metadata download's TLS, instead of the system's.
    case metadataCA = "UMFA_METADATA_CA"
    /// The first wait after a failed or unchanged metadata download once the BLOB held is past its
    /// `nextUpdate`, or while none is held, in seconds; it doubles on each further one, up to 16
    /// times this, never over a day.
    case metadataRetrySeconds = "UMFA_METADATA_RETRY_SECONDS"
    /// The log level (`trace` … `critical`).
    case logLevel = "UMFA_LOG_LEVEL"
    /// How soon a signing key rotated on another instance is used here, in seconds.
    case signingKeyRefreshSeconds = "UMFA_SIGNING_KEY_REFRESH_SECONDS"
    /// Whether the client address is the last `X-Forwarded-For` entry.
    case trustForwardedFor = "UMFA_TRUST_FORWARDED_FOR"
    /// How long a silent connection stays open, in seconds.
    case idleTimeoutSeconds = "UMFA_IDLE_TIMEOUT_SECONDS"
    /// How long a request body may take to arrive, in seconds.
    case bodyTimeoutSeconds = "UMFA_BODY_TIMEOUT_SECONDS"
    /// Failed ceremonies per user and client address within the window.
    case limitUserFailures = "UMFA_LIMIT_USER_FAILURES"
    /// Failed ceremonies per client address within the window.
    case limitAddressFailures = "UMFA_LIMIT_ADDRESS_FAILURES"
    /// Wrong admin tokens and unknown API keys per client address within the window.
    case limitCredentialFailures = "UMFA_LIMIT_CREDENTIAL_FAILURES"
    /// Ceremony options requests per client address within the window.
    case limitOptionsRequests = "UMFA_LIMIT_OPTIONS_REQUESTS"
    /// The abuse limits' counting window, in seconds.
    case limitWindowSeconds = "UMFA_LIMIT_WINDOW_SECONDS"
    /// The first block, in seconds.
    case limitBlockSeconds = "UMFA_LIMIT_BLOCK_SECONDS"
    /// The longest block, in seconds.
    case limitMaxBlockSeconds = "UMFA_LIMIT_MAX_BLOCK_SECONDS"
    /// The bearer token `/metrics` asks for.
    case metricsToken = "UMFA_METRICS_TOKEN"
    /// How long audit events are kept, in days.
    case auditRetentionDays = "UMFA_AUDIT_RETENTION_DAYS"
    /// How long one webhook delivery may take, in seconds.
    case webhookTimeoutSeconds = "UMFA_WEBHOOK_TIMEOUT_SECONDS"
    /// The PKCS #11 module (a shared library) token signing keys may live in.
    case pkcs11Module = "UMFA_PKCS11_MODULE"
    /// The file holding the PKCS #11 token's user PIN.
    case pkcs11PinFile = "UMFA_PKCS11_PIN_FILE"
    /// How long the server keeps serving after SIGTERM with `/health/ready` answering 503, so a
    /// load balancer stops sending it requests first, in seconds.
    case drainSeconds = "UMFA_DRAIN_SECONDS"
    /// The URL clients reach the server at.
    case publicURL = "UMFA_PUBLIC_URL"
    /// How long validate-token trusts what it read, in seconds.
    case validationCacheSeconds = "UMFA_VALIDATION_CACHE_SECONDS"
    /// The TLS certificate (PEM, leaf first, chain allowed); with ``tlsKey`` the server speaks HTTPS.
    case tlsCertificate = "UMFA_TLS_CERTIFICATE"
    /// The TLS private key (PEM) of ``tlsCertificate``.
    case tlsKey = "UMFA_TLS_KEY"
    /// The port of the mutual-TLS endpoint alias listener (RFC 8705 §5); needs TLS.
    case mtlsPort = "UMFA_MTLS_PORT"
    /// The URL clients reach the mutual-TLS alias at; `https://<public host>:<mtls port>` by default.
    case mtlsBaseURL = "UMFA_MTLS_BASE_URL"
    /// How often the TLS files are checked for changes, in seconds (2 when unset); `0` reloads on SIGHUP only.
    case tlsReloadSeconds = "UMFA_TLS_RELOAD_SECONDS"
    /// The header a trusted TLS-terminating proxy sets to the client certificate (RFC 8705 §6.5).
    case tlsClientCertHeader = "UMFA_TLS_CLIENT_CERT_HEADER"
    /// The proxy addresses (IPs or CIDR ranges) whose client certificate header is believed.
    case tlsClientCertTrustedProxies = "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES"
    /// A PEM file of the CAs `tls_client_auth` client certificates must chain to (RFC 8705 §2.1).
    case mtlsTrustAnchors = "UMFA_MTLS_TRUST_ANCHORS"
    /// `Strict-Transport-Security` `max-age` on HTTPS answers, in seconds (one year when unset); `0` tells browsers to forget.
    case hstsMaxAgeSeconds = "UMFA_HSTS_MAX_AGE_SECONDS"
    /// Whether HSTS covers the host's subdomains too (`includeSubDomains`); off when unset.
    case hstsIncludeSubdomains = "UMFA_HSTS_INCLUDE_SUBDOMAINS"
    /// The mail server (`smtp://host:port`, `smtps://…` for implicit TLS; `?starttls=required`,
    /// `?ca_file=PATH`); mail features are off without it.
    case smtpURL = "UMFA_SMTP_URL"
    /// The mail server's user, when the URL does not name one.
    case smtpUsername = "UMFA_SMTP_USERNAME"
    /// The mail server's password, when the URL does not give one (never logged).
    case smtpPassword = "UMFA_SMTP_PASSWORD"
    /// The sender of UMFA's mail (`UMFA <no-reply@example.com>` or a bare address).
    case mailFrom = "UMFA_MAIL_FROM"
    /// A directory of message templates that replace the built-in ones (`<name>.txt`).
    case mailTemplates = "UMFA_MAIL_TEMPLATES"
    /// A PEM file of CAs the https servers of pairwise clients' `sector_identifier_uri` may chain to, beside the system's.
    case sectorIdentifierCAFile = "UMFA_SECTOR_IDENTIFIER_CA_FILE"

    /// The environment variable's name (`UMFA_LIMIT_OPTIONS_REQUESTS`).
    package var environmentName: String { rawValue }

    /// The configuration file's key: the name without `UMFA_`, in lower case
    /// (`limit_options_requests`).
    package var fileKey: String { rawValue.dropFirst("UMFA_".count).lowercased() }

    /// The setting a configuration file's key names; only the exact lower-case spelling counts.
    package init?(fileKey: String) {
        guard let setting = Self.allCases.first(where: { $0.fileKey == fileKey }) else { return nil }
        self = setting
    }
}
