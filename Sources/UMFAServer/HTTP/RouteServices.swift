import Prometheus

/// The route adapters the router calls, built once from the composition root's features when the
/// router is (``Routes/install(on:)``), never per request or per operation.
struct RouteServices: Sendable {
    let apiFlowRoutes: APIFlowRoutes
    let appSiteAssociation: AppSiteAssociation
    let authorizeEndpoint: AuthorizeEndpoint
    let clientRegistrationRoutes: ClientRegistrationRoutes
    let consoleRoutes: ConsoleRoutes
    let interactionRoutes: InteractionRoutes
    let logoutEndpoint: LogoutEndpoint
    let oauthRoutes: OAuthRoutes
    let userinfoEndpoint: UserinfoEndpoint
    let publicRoutes: PublicRoutes
    let demoPage: DemoPage
    let relatedOrigins: RelatedOriginsRoute

    init(
        _ features: ServerComposition, metrics: PrometheusCollectorRegistry, metricsTokenHash: [UInt8]?,
        demoRoutes: Bool
    ) {
        apiFlowRoutes = APIFlowRoutes(provider: features.provider)
        appSiteAssociation = AppSiteAssociation(store: features.appSites)
        authorizeEndpoint = AuthorizeEndpoint(provider: features.provider)
        clientRegistrationRoutes = ClientRegistrationRoutes(provider: features.provider)
        consoleRoutes = ConsoleRoutes(
            console: features.console, administration: features.consoleAdministration,
            publicURL: features.publicURL)
        interactionRoutes = InteractionRoutes(provider: features.provider)
        logoutEndpoint = LogoutEndpoint(logout: features.logout)
        oauthRoutes = OAuthRoutes(tokens: features.tokens, issuers: features.issuers)
        userinfoEndpoint = UserinfoEndpoint(provider: features.provider)
        publicRoutes = PublicRoutes(
            tokens: features.tokens, abuse: features.abuse, metrics: metrics, metricsTokenHash: metricsTokenHash)
        demoPage = DemoPage(store: features.settings, demoRoutes: demoRoutes)
        relatedOrigins = RelatedOriginsRoute(service: features.relatedOrigins)
    }
}
