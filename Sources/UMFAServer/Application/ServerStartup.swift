import Foundation
import Logging
import UMFAStorage
import UMFATokens

extension ServerComposition {
    /// Keys, secrets and first-start work, before any route exists.
    static func prepare(
        store: any UMFAStore, configuration: ServerConfiguration, metrics: ServerMetrics,
        validationCache: ValidationCache, logger: Logger
    ) async throws -> (ServerComposition, StartupReport) {
        try await MasterKeyRotation.refuseUnfinished(store)
        configuration.metadataRefresh?.report(to: metrics)
        let masterKey =
            try configuration.masterKey.map { try MasterKey(base64: $0) }
            ?? MasterKey.loadOrCreate(in: configuration.dataDirectory)
        let tokens = TokenService(
            store: store, masterKey: masterKey, issuer: configuration.issuer,
            refreshInterval: configuration.signingKeyRefreshInterval,
            now: configuration.now, signatureObserver: { metrics.signature($0, duration: $1) },
            hsm: try configuration.pkcs11Keys())
        do {
            try await tokens.loadKeys()
        } catch let failure as PKCS11Failure {
            throw ConfigurationError("a signing key in a PKCS #11 token cannot be used: \(failure.description)")
        } catch let failure as PKCS11URI.Failure {
            throw ConfigurationError("a stored PKCS #11 URI cannot be used: \(failure.description)")
        }
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
                    limits: configuration.abuseLimits,
                    failures: failureCounts(store: store, configuration: configuration),
                    now: configuration.now, logger: logger),
                attestationAnchors: configuration.attestationAnchors,
                approvalDispatchers: configuration.approvalDispatchers,
                publicURL: publicURL,
                metrics: metrics, validationCache: validationCache,
                mutualTLSAnchors: configuration.mutualTLS.trustAnchors,
                sectorDocuments: SectorIdentifierDocuments(trustRoots: configuration.sectorIdentifierTrustRoots),
                mutualTLSAliasURL: configuration.tls?.aliasBaseURL(publicURL: publicURL),
                webhookTimeout: configuration.webhookTimeout, mail: configuration.mail,
                mailTemplates: try MailTemplates(directory: configuration.mail?.templatesDirectory)))
        report.openApplications = try await store.applications().filter { $0.enrollmentPolicy == .open }.map {
            "\($0.name) (\($0.id.uuidString.lowercased()))"
        }
        try await ExpiryPurge(
            store: store, now: configuration.now, logger: logger, auditRetention: configuration.auditRetention
        ).purge()
        // Operator passkeys enrolled under an earlier admin token end now.
        try await features.consoleTokenEpoch.enforce()
        return (features, report)
    }
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

extension ServerConfiguration {
    /// The PKCS #11 module and PIN of `UMFA_PKCS11_MODULE` and `UMFA_PKCS11_PIN_FILE`, loaded and
    /// initialised; `nil` without a module. The PIN never reaches a message.
    func pkcs11Keys() throws -> PKCS11Keys? {
        guard let path = pkcs11Module else { return nil }
        guard let pinFile = pkcs11PinFile else {
            throw ConfigurationError(
                "UMFA_PKCS11_MODULE needs UMFA_PKCS11_PIN_FILE, the file with the token's user PIN")
        }
        var status = stat()
        guard stat(pinFile, &status) == 0, let data = FileManager.default.contents(atPath: pinFile) else {
            throw ConfigurationError("UMFA_PKCS11_PIN_FILE: cannot read \(pinFile)")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw ConfigurationError(
                "UMFA_PKCS11_PIN_FILE: \(pinFile) may be read or changed by others: run `chmod 600 \(pinFile)`")
        }
        var pin = String(decoding: data, as: UTF8.self)
        while pin.last == "\n" || pin.last == "\r" { pin.removeLast() }
        guard !pin.isEmpty else { throw ConfigurationError("UMFA_PKCS11_PIN_FILE: \(pinFile) is empty") }
        do {
            return PKCS11Keys(module: try PKCS11Module(path: path), pin: pin)
        } catch {
            throw ConfigurationError("UMFA_PKCS11_MODULE: \(error.description)")
        }
    }
}
