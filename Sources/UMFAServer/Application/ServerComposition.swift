import Foundation
import Logging
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import X509

/// The composition root (docs/development.md, "Ports"): every feature of the server built once,
/// in dependency order, from exactly the ports it uses. The store, the token service and the
/// secrets come in here and are handed on as capabilities: each feature holds the narrow store
/// it declares and the few secrets it uses, never this value. The HTTP edge
/// (``RouteServices``) adapts the features built here.
struct ServerComposition: Sendable {
    /// What the composition is built from: the opened store, the keys and secrets of this
    /// start, the configured limits and settings.
    struct Inputs: Sendable {
        /// The store as `buildApplication` serves it: observed by the metrics and by
        /// ``validationCache`` (`ServedStore.observed(by:)`), so a deleted passkey or API key
        /// leaves the cache with the statement that deletes it. A store without that observer
        /// would let validate-token accept them until the cache's lifetime ends.
        let store: any UMFAStore
        let tokens: TokenService
        /// Secret for values that must be stable but unguessable (pseudo credential ids, nonces).
        let serverSecret: [UInt8]
        /// Seals what must be stored readable by the server only; the master key itself is no
        /// feature's to hold.
        let sealed: SealedSecrets
        let adminToken: AdminToken
        /// How long a challenge is accepted.
        let challengeLifetime: TimeInterval
        let now: @Sendable () -> Date
        let logger: Logger
        let abuse: AbuseGuard
        let attestationAnchors: AttestationTrustAnchors
        let approvalDispatchers: [any ApprovalDispatcher]
        /// `UMFA_PUBLIC_URL`: the base of every issuer URL.
        let publicURL: String
        let metrics: ServerMetrics
        /// validate-token's short memory of API keys and credentials; ``store`` must report to it.
        let validationCache: ValidationCache
        let mutualTLSAnchors: [Certificate]
        /// Fetches pairwise clients' sector identifier documents.
        let sectorDocuments: SectorIdentifierDocuments
        /// The mutual-TLS alias listener's base URL (RFC 8705 §5), `nil` without that listener.
        let mutualTLSAliasURL: String?
        /// How long one webhook delivery may take.
        let webhookTimeout: Duration
        /// The mail server; `nil` when mail is off.
        let mail: MailSettings?
        let mailTemplates: MailTemplates
    }

    // Shared by several features.
    let audit: AuditLog
    let refusals: RefusalTrail
    let abuse: AbuseGuard
    let logger: Logger
    let publicURL: String
    let mutualTLSAliasURL: String?

    // Device ceremonies and validate-token.
    let registration: RegistrationService
    let authentication: AuthenticationService
    let validateToken: ValidateTokenService
    let enrollmentTokens: EnrollmentTokenService
    let credentials: CredentialService
    let relatedOrigins: RelatedOriginsService
    let appSites: any ApplicationStore

    // Out-of-band enrollment and approval.
    let outOfBand: OutOfBandService
    let deviceProofs: DeviceProofCheck
    let pendingApprovals: PendingApprovalRoutes
    let deviceInformation: DeviceInformationService
    let webhooks: Webhooks
    /// Delivers the webhook outbox, a service of the application's service group.
    let webhookDispatcher: WebhookDispatcher

    // Mail.
    let mailer: Mailer
    /// Sends the mail outbox, a service of the application's service group when mail is on.
    let mailDispatcher: MailDispatcher?
    /// Sends logout tokens (OpenID Connect Back-Channel Logout 1.0).
    let logoutDispatcher: BackchannelLogoutDispatcher

    // Self-service, recovery and profiles.
    let selfService: SelfServiceService
    let emailVerification: EmailVerification
    let emailRecovery: EmailRecovery
    let recoveryCodes: RecoveryCodeService
    let userProfiles: UserProfileService

    // Administration and the console.
    let admin: AdminService
    let auditEvents: AuditEventService
    let oauthClientAdmin: OAuthClientAdminService
    let initialAccessTokens: InitialAccessTokenService
    let console: ConsoleService
    let consoleAdministration: ConsoleAdminService
    let consoleTokenEpoch: ConsoleTokenEpoch
    /// The admin token's check (or a console session's), shared by the admin routes and the console.
    let adminAuthorization: AdminAuthorization

    // The OpenID provider.
    let provider: OpenIDProvider
    let issuers: IssuerDirectory
    let logout: LogoutService

    // Public files and the demo page.
    let tokens: TokenService
    let settings: any SettingStore
    /// `/health/ready`: whether the database answers and the instance is not draining.
    let readiness: Readiness

    /// Builds every feature from `inputs`.
    init(_ inputs: Inputs) {
        let store = inputs.store
        let now = inputs.now
        let mailer = Mailer(
            settings: inputs.mail, templates: inputs.mailTemplates, store: store, sealed: inputs.sealed,
            logger: inputs.logger, now: now)
        let audit = AuditLog(
            store: store, logger: inputs.logger, now: now, notices: SecurityNotices(mailer: mailer, store: store))
        let apiKeys = APIKeyAuthentication(store: store, validationCache: inputs.validationCache, abuse: inputs.abuse)
        let loginTokens = LoginTokens(
            tokens: inputs.tokens, store: store, validationCache: inputs.validationCache, now: now)
        let ceremonies = Ceremonies(
            store: store, attestationAnchors: inputs.attestationAnchors, challengeLifetime: inputs.challengeLifetime,
            abuse: inputs.abuse, metrics: inputs.metrics, audit: audit, now: now)
        let backchannel = BackchannelLogout(
            store: store, publicURL: inputs.publicURL, serverSecret: inputs.serverSecret, logger: inputs.logger,
            now: now)
        let signIns = SignInCredentials(
            store: store, audit: audit, backchannel: backchannel, logger: inputs.logger, now: now)
        let refusals = RefusalTrail(metrics: inputs.metrics, logger: inputs.logger)
        let accounts = AccountDeletion(store: store, audit: audit, backchannel: backchannel)
        self.audit = audit
        self.refusals = refusals
        abuse = inputs.abuse
        logger = inputs.logger
        publicURL = inputs.publicURL
        mutualTLSAliasURL = inputs.mutualTLSAliasURL
        tokens = inputs.tokens
        settings = store
        readiness = Readiness(store: store, logger: inputs.logger)
        appSites = store

        registration = RegistrationService(ceremonies: ceremonies, store: store, loginTokens: loginTokens)
        authentication = AuthenticationService(
            ceremonies: ceremonies, store: store, loginTokens: loginTokens, signIns: signIns,
            serverSecret: inputs.serverSecret)
        validateToken = ValidateTokenService(
            apiKeys: apiKeys, ceremonies: ceremonies, loginTokens: loginTokens, refusals: refusals)
        enrollmentTokens = EnrollmentTokenService(apiKeys: apiKeys, store: store, now: now)
        credentials = CredentialService(
            apiKeys: apiKeys, store: store, audit: audit, signIns: signIns, accounts: accounts)
        relatedOrigins = RelatedOriginsService(store: store)

        webhooks = Webhooks(store: store, sealed: inputs.sealed, logger: inputs.logger, now: now)
        webhookDispatcher = WebhookDispatcher(
            store: store, webhooks: webhooks, sealed: inputs.sealed, metrics: inputs.metrics, logger: inputs.logger,
            now: now, timeout: inputs.webhookTimeout)
        self.mailer = mailer
        logoutDispatcher = BackchannelLogoutDispatcher(
            store: store, tokens: inputs.tokens, metrics: inputs.metrics, logger: inputs.logger, now: now)
        mailDispatcher = inputs.mail.map {
            MailDispatcher(
                settings: $0, store: store, sealed: inputs.sealed, metrics: inputs.metrics, logger: inputs.logger,
                now: now)
        }
        deviceProofs = DeviceProofCheck(store: store, abuse: inputs.abuse, publicURL: inputs.publicURL, now: now)
        outOfBand = OutOfBandService(
            store: store, apiKeys: apiKeys, ceremonies: ceremonies, registration: registration,
            authentication: authentication, loginTokens: loginTokens, webhooks: webhooks,
            approvalDispatchers: inputs.approvalDispatchers, sealed: inputs.sealed, abuse: inputs.abuse, audit: audit,
            logger: inputs.logger, publicURL: inputs.publicURL, now: now)
        pendingApprovals = PendingApprovalRoutes(
            store: store, deviceProofs: deviceProofs, sealed: inputs.sealed, publicURL: inputs.publicURL, now: now)
        deviceInformation = DeviceInformationService(store: store, deviceProofs: deviceProofs)

        userProfiles = UserProfileService(apiKeys: apiKeys, store: store, notices: audit.notices, now: now)
        let recoveryCodeSets = RecoveryCodes(store: store, audit: audit, now: now)
        recoveryCodes = RecoveryCodeService(
            store: store, codes: recoveryCodeSets, loginTokens: loginTokens, apiKeys: apiKeys,
            enrollmentTokens: enrollmentTokens,
            abuse: inputs.abuse, audit: audit, now: now)

        let emailCodes = EmailCodes(store: store, mailer: mailer, serverSecret: inputs.serverSecret, now: now)
        provider = OpenIDProvider(
            store: store, tokens: inputs.tokens, signIns: signIns, userProfiles: userProfiles,
            authentication: authentication, registration: registration, outOfBand: outOfBand, emailCodes: emailCodes,
            audit: audit,
            refusals: refusals, abuse: inputs.abuse, sealed: inputs.sealed, serverSecret: inputs.serverSecret,
            attestationAnchors: inputs.attestationAnchors, mutualTLSAnchors: inputs.mutualTLSAnchors,
            sectorDocuments: inputs.sectorDocuments, metrics: inputs.metrics, logger: inputs.logger,
            publicURL: inputs.publicURL, now: now)
        issuers = IssuerDirectory(records: StoreIssuerRecords(store: store), publicURL: inputs.publicURL)
        logout = LogoutService(
            store: store, tokens: inputs.tokens, signIns: signIns, serverSecret: inputs.serverSecret, now: now)
        let meAccess = PasskeyManagementAccess(provider: provider, loginTokens: loginTokens)
        selfService = SelfServiceService(
            access: meAccess, store: store, audit: audit, signIns: signIns, accounts: accounts)
        emailVerification = EmailVerification(access: meAccess, codes: emailCodes, audit: audit)
        emailRecovery = EmailRecovery(
            store: store, mailer: mailer, enrollmentTokens: enrollmentTokens, registration: registration,
            abuse: inputs.abuse, audit: audit, logger: inputs.logger, now: now)

        admin = AdminService(
            store: store, tokens: inputs.tokens, webhooks: webhooks, signIns: signIns, recoveryCodes: recoveryCodeSets,
            accounts: accounts, audit: audit, now: now)
        auditEvents = AuditEventService(apiKeys: apiKeys, store: store)
        oauthClientAdmin = OAuthClientAdminService(
            store: store, sealed: inputs.sealed, sectorDocuments: inputs.sectorDocuments, audit: audit, now: now)
        initialAccessTokens = InitialAccessTokenService(store: store, audit: audit, now: now)
        consoleTokenEpoch = ConsoleTokenEpoch(
            adminToken: inputs.adminToken, store: store, audit: audit, logger: inputs.logger)
        let consoleSessions = ConsoleSessions(
            store: store, epoch: consoleTokenEpoch, serverSecret: inputs.serverSecret, now: now)
        let adminTokenCheck = AdminTokenCheck(adminToken: inputs.adminToken, abuse: inputs.abuse)
        adminAuthorization = AdminAuthorization(consoleSessions: consoleSessions, check: adminTokenCheck)
        console = ConsoleService(
            relyingParty: ConsoleRelyingParty(
                store: store, publicURL: inputs.publicURL, challengeLifetime: inputs.challengeLifetime, now: now),
            sessions: consoleSessions, adminTokenCheck: adminTokenCheck, store: store, abuse: inputs.abuse,
            audit: audit, now: now)
        consoleAdministration = ConsoleAdminService(store: store, audit: audit, now: now)
    }
}
