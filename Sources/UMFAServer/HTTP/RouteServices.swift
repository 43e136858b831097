import Prometheus

/// The services and route adapters the router calls, built once when the router is
/// (``Routes/install(on:)``), never per request or per operation.
struct RouteServices: Sendable {
    let apiFlowRoutes: APIFlowRoutes
    let adminService: AdminService
    let appSiteAssociation: AppSiteAssociation
    let auditEventQuery: AuditEventQuery
    let authenticationService: AuthenticationService
    let authorizeEndpoint: AuthorizeEndpoint
    let clientRegistrationRoutes: ClientRegistrationRoutes
    let consoleRoutes: ConsoleRoutes
    let credentialService: CredentialService
    let enrollmentTokenService: EnrollmentTokenService
    let initialAccessTokens: InitialAccessTokens
    let interactionRoutes: InteractionRoutes
    let logoutEndpoint: LogoutEndpoint
    let oauthClientAdmin: OAuthClientAdmin
    let oauthRoutes: OAuthRoutes
    let outOfBandService: OutOfBandService
    let pendingApprovals: PendingApprovals
    let recoveryCodes: RecoveryCodes
    let registrationService: RegistrationService
    let selfServiceService: SelfServiceService
    let userProfiles: UserProfiles
    let userinfoEndpoint: UserinfoEndpoint
    let validateTokenService: ValidateTokenService
    let publicRoutes: PublicRoutes
    let demoPage: DemoPage
    /// The issuers under `/oidc/{application_id}`.
    let issuers: IssuerDirectory

    init(
        services: ServerServices, metrics: PrometheusCollectorRegistry, metricsTokenHash: [UInt8]?, demoRoutes: Bool
    ) {
        apiFlowRoutes = APIFlowRoutes(services: services)
        adminService = AdminService(
            store: services.store, tokens: services.tokens, webhooks: services.webhooks, signIns: services.signIns,
            recoveryCodes: services.recoveryCodes, audit: services.audit, now: services.now)
        appSiteAssociation = AppSiteAssociation(store: services.store)
        auditEventQuery = AuditEventQuery(apiKeys: services.apiKeys, store: services.store)
        authenticationService = services.authentication
        authorizeEndpoint = AuthorizeEndpoint(services: services)
        clientRegistrationRoutes = ClientRegistrationRoutes(services: services)
        consoleRoutes = ConsoleRoutes(
            console: services.console,
            administration: ConsoleAdministration(store: services.store, audit: services.audit, now: services.now),
            publicURL: services.publicURL)
        credentialService = CredentialService(
            apiKeys: services.apiKeys, store: services.store, audit: services.audit, signIns: services.signIns)
        enrollmentTokenService = services.enrollmentTokens
        initialAccessTokens = InitialAccessTokens(services: services)
        interactionRoutes = InteractionRoutes(services: services)
        logoutEndpoint = LogoutEndpoint(logout: LogoutService(services: services))
        oauthClientAdmin = OAuthClientAdmin(services: services)
        issuers = IssuerDirectory(records: StoreIssuerRecords(store: services.store), publicURL: services.publicURL)
        oauthRoutes = OAuthRoutes(tokens: services.tokens, issuers: issuers)
        outOfBandService = services.outOfBand
        pendingApprovals = PendingApprovals(
            store: services.store, deviceProofs: services.deviceProofs, sealed: services.sealed,
            publicURL: services.publicURL, now: services.now)
        recoveryCodes = services.recoveryCodes
        registrationService = services.registration
        selfServiceService = SelfServiceService(
            access: services.passkeyAccess, store: services.store, audit: services.audit, signIns: services.signIns)
        userProfiles = services.userProfiles
        userinfoEndpoint = UserinfoEndpoint(services: services)
        validateTokenService = ValidateTokenService(
            apiKeys: services.apiKeys, ceremonies: services.ceremonies, loginTokens: services.loginTokens,
            refusals: services.refusals)
        publicRoutes = PublicRoutes(
            tokens: services.tokens, abuse: services.abuse, metrics: metrics, metricsTokenHash: metricsTokenHash)
        demoPage = DemoPage(store: services.store, demoRoutes: demoRoutes)
    }
}
