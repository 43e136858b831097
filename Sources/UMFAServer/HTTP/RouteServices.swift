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
        adminService = AdminService(services: services)
        appSiteAssociation = AppSiteAssociation(services: services)
        auditEventQuery = AuditEventQuery(apiKeys: services.apiKeys, store: services.store)
        authenticationService = AuthenticationService(services: services)
        authorizeEndpoint = AuthorizeEndpoint(services: services)
        clientRegistrationRoutes = ClientRegistrationRoutes(services: services)
        consoleRoutes = ConsoleRoutes(services: services)
        credentialService = CredentialService(services: services)
        enrollmentTokenService = EnrollmentTokenService(services: services)
        initialAccessTokens = InitialAccessTokens(services: services)
        interactionRoutes = InteractionRoutes(services: services)
        logoutEndpoint = LogoutEndpoint(logout: LogoutService(services: services))
        oauthClientAdmin = OAuthClientAdmin(services: services)
        issuers = IssuerDirectory(records: StoreIssuerRecords(store: services.store), publicURL: services.publicURL)
        oauthRoutes = OAuthRoutes(tokens: services.tokens, issuers: issuers)
        outOfBandService = OutOfBandService(services: services)
        pendingApprovals = PendingApprovals(services: services)
        recoveryCodes = RecoveryCodes(services: services)
        registrationService = RegistrationService(services: services)
        selfServiceService = SelfServiceService(services: services)
        userProfiles = UserProfiles(services: services)
        userinfoEndpoint = UserinfoEndpoint(services: services)
        validateTokenService = ValidateTokenService(services: services)
        publicRoutes = PublicRoutes(services: services, metrics: metrics, metricsTokenHash: metricsTokenHash)
        demoPage = DemoPage(services: services, demoRoutes: demoRoutes)
    }
}
