import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

@testable import UMFAServer

/// What one feature is built from in a test, without a server (docs/development.md, "Ports"):
/// a real SQLite file store, a hand-moved clock, the small collaborators (audit log, abuse guard,
/// token keys, sealed secrets, metrics) and one seeded application. ``with(limits:signing:_:)``
/// closes the store and removes its file afterwards.
final class FeaturePorts: Sendable {
    static let publicURL = "https://id.example.com"

    let store: any UMFAStore
    let clock: TestClock
    /// The application every test works in.
    let application: ApplicationRecord
    /// The token keys; loaded only when the test signs (``with(limits:signing:_:)``).
    let tokens: TokenService
    let sealed: SealedSecrets
    let serverSecret: [UInt8]
    let abuse: AbuseGuard
    let validationCache: ValidationCache
    let metrics: ServerMetrics
    let logger: Logger
    /// The caller of the tests' requests.
    let caller = Caller(traceID: "trace-feature-test", clientAddress: "203.0.113.7")
    private let directory: URL

    private init(directory: URL, store opened: any UMFAStore, limits: AbuseLimits) async throws {
        let clock = TestClock()
        let now: @Sendable () -> Date = { clock.now }
        let metrics = ServerMetrics(registry: .init())
        let validationCache = ValidationCache(lifetime: 30, now: now)
        // As the server opens it (buildApplication): every statement reaches the metrics and the
        // validation cache, so a deletion clears what the cache remembers.
        let store = ServedStore(store: opened).observed(by: StoreObservers(observers: [metrics, validationCache]))
            .store
        var logger = Logger(label: "umfa-feature-test")
        logger.logLevel = .critical
        let masterKey = try MasterKey(base64: Data(Secrets.randomBytes(32)).base64EncodedString())
        self.directory = directory
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.validationCache = validationCache
        tokens = TokenService(store: store, masterKey: masterKey, now: now)
        sealed = SealedSecrets(masterKey: masterKey)
        serverSecret = Secrets.randomBytes(32)
        abuse = AbuseGuard(limits: limits, failures: LocalFailureCounts(limits: limits), now: now, logger: logger)
        application = ApplicationRecord(
            id: UUID(), name: "Shop", rpID: "example.com", rpName: "Example shop",
            origins: ["https://app.example.com"], enrollmentPolicy: .grant, userVerification: .preferred,
            attestation: .none, tokenTTLSeconds: 300, createdAt: clock.now)
        try await store.insertApplication(application)
    }

    /// Runs `body` on fresh ports: a new SQLite file (migrated by `open`), abuse `limits`, and
    /// the token keys loaded when `signing`. The store is closed and its file removed afterwards.
    static func with<Value>(
        limits: AbuseLimits = AbuseLimits(), signing: Bool = false, _ body: (FeaturePorts) async throws -> Value
    ) async throws -> Value {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-ports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-feature-test"))
        do {
            let ports = try await FeaturePorts(directory: directory, store: store, limits: limits)
            if signing { try await ports.tokens.loadKeys() }
            let value = try await body(ports)
            try await store.close()
            return value
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// The test clock as the features read it.
    var now: @Sendable () -> Date {
        let clock = clock
        return { clock.now }
    }

    var audit: AuditLog { AuditLog(store: store, logger: logger, now: now) }
    var refusals: RefusalTrail { RefusalTrail(metrics: metrics, logger: logger) }
    var signIns: SignInCredentials {
        SignInCredentials(store: store, audit: audit, backchannel: backchannel, logger: logger, now: now)
    }
    var backchannel: BackchannelLogout {
        BackchannelLogout(
            store: store, publicURL: Self.publicURL, serverSecret: serverSecret, logger: logger, now: now)
    }
    var apiKeys: APIKeyAuthentication {
        APIKeyAuthentication(store: store, validationCache: validationCache, abuse: abuse)
    }
    var issuer: OAuthIssuer { OAuthIssuer(application: application, publicURL: Self.publicURL) }
    var loginTokens: LoginTokens {
        LoginTokens(tokens: tokens, store: store, validationCache: validationCache, now: now)
    }
    /// What the WebAuthn ceremonies are built from, with five-minute challenges.
    var ceremonies: Ceremonies {
        Ceremonies(
            store: store, attestationAnchors: .wellKnown(), challengeLifetime: 300, abuse: abuse, metrics: metrics,
            audit: audit, now: now)
    }
    var registration: RegistrationService {
        RegistrationService(ceremonies: ceremonies, store: store, loginTokens: loginTokens)
    }
    var authentication: AuthenticationService {
        AuthenticationService(
            ceremonies: ceremonies, store: store, loginTokens: loginTokens, signIns: signIns,
            serverSecret: serverSecret)
    }
    var webhooks: Webhooks { Webhooks(store: store, sealed: sealed, logger: logger, now: now) }

    /// The tests' caller presenting `bearer` (an API key).
    func caller(bearer: String?) -> Caller {
        Caller(traceID: caller.traceID, clientAddress: caller.clientAddress, bearer: bearer)
    }

    /// Every feature built by the composition root from these ports, for the features whose
    /// init needs most of the others (the OpenID provider).
    func composition(adminToken: String = "umfa-feature-admin-token") -> ServerComposition {
        ServerComposition(
            .init(
                store: store, tokens: tokens, serverSecret: serverSecret, sealed: sealed,
                adminToken: AdminToken(hash: Secrets.hash(adminToken)), challengeLifetime: 300, now: now,
                logger: logger, abuse: abuse, attestationAnchors: .wellKnown(), approvalDispatchers: [],
                publicURL: Self.publicURL, metrics: metrics, validationCache: validationCache, mutualTLSAnchors: [],
                sectorDocuments: SectorIdentifierDocuments(),
                mutualTLSAliasURL: nil, webhookTimeout: .seconds(5), mail: nil,
                mailTemplates: MailTemplates()))
    }

    // MARK: Seeding

    /// A new API key of `application` (the tests' one when `nil`), stored hashed as the admin API does.
    func addAPIKey(for application: ApplicationRecord? = nil) async throws -> String {
        let key = Secrets.make(prefix: "umfa_ak_")
        try await store.insertAPIKey(
            hash: Secrets.hash(key), applicationID: application?.id ?? self.application.id, createdAt: clock.now)
        return key
    }

    /// Stores another application, of `rpID` and `origins`.
    func addApplication(rpID: String, origins: [String]) async throws -> ApplicationRecord {
        let other = ApplicationRecord(
            id: UUID(), name: "Other", rpID: rpID, rpName: "Other shop", origins: origins, enrollmentPolicy: .grant,
            userVerification: .preferred, attestation: .none, tokenTTLSeconds: 300, createdAt: clock.now)
        try await store.insertApplication(other)
        return other
    }

    /// Adds `userID` (once) to the application.
    func addUser(_ userID: String) async throws {
        _ = try await store.insertUser(
            UserRecord(
                applicationID: application.id, userID: userID, userHandle: Secrets.randomBytes(32),
                displayName: userID, createdAt: clock.now))
    }

    /// Registers a new passkey for `userID` (added when absent) and returns its id. The key is
    /// random bytes: no test here verifies an assertion with it.
    func addPasskey(for userID: String) async throws -> [UInt8] {
        try await addUser(userID)
        let id = Secrets.randomBytes(16)
        try await store.insertCredential(
            StoredCredential(
                applicationID: application.id, userID: userID, credentialID: id, publicKey: Secrets.randomBytes(77),
                signCount: 0, aaguid: [UInt8](repeating: 0, count: 16), transports: ["internal"],
                backupEligible: false, backupState: false, uvInitialized: true, attestationFormat: "none",
                deviceName: nil, createdAt: clock.now, lastUsedAt: nil))
        return id
    }

    /// A sign-in of `userID` with `passkey` now, in the SSO session `sessionID`.
    func signIn(_ userID: String, passkey: [UInt8], sessionID: String = "sid-" + UUID().uuidString) -> SignIn {
        SignIn(
            userID: userID, authTime: Int(clock.now.timeIntervalSince1970), amr: ["swk", "user"],
            sessionID: sessionID, credentialID: Base64URL.encode(passkey))
    }

    /// Stores an OAuth client of the application after `configure`; its record and its secret
    /// (for a method that uses one).
    func addClient(_ configure: (inout OAuthClientRecord) -> Void) async throws -> (
        record: OAuthClientRecord, secret: String
    ) {
        var client = OAuthClientSettings.newClient(applicationID: application.id, at: clock.now)
        configure(&client)
        let secret = try OAuthClientSettings.newSecret(for: &client, sealed: sealed)
        if !client.authenticationMethod.usesSecret { client.secretHash = nil }
        try await store.insertOAuthClient(client)
        return (client, secret)
    }

    /// The audit events of `action` in the store, oldest first.
    func events(_ action: AuditAction) async throws -> [AuditEventRecord] {
        try await store.auditEvents(AuditEventFilter(action: action.rawValue), after: nil, limit: 100)
    }
}
