import Prometheus

/// The route adapters the router calls, built once from the composition root's features when the
/// router is (``Routes/install(on:)``), never per request or per operation.
struct RouteServices: Sendable {
    let apiFlowRoutes: APIFlowRoutes
    let appSiteAssociation: AppSiteAssociationRoutes
    let authorizeEndpoint: AuthorizeRoutes
    let clientRegistrationRoutes: ClientRegistrationRoutes
    let consoleRoutes: ConsoleRoutes
    let interactionRoutes: InteractionRoutes
    let logoutEndpoint: LogoutRoutes
    let oauthRoutes: OAuthRoutes
    let userinfoEndpoint: UserinfoRoutes
    let publicRoutes: PublicRoutes
    let demoPage: DemoPageRoutes
    let relatedOrigins: RelatedOriginsRoutes

    init(
        _ features: ServerComposition, metrics: PrometheusCollectorRegistry, metricsTokenHash: [UInt8]?,
        demoRoutes: Bool
    ) {
        apiFlowRoutes = APIFlowRoutes(provider: features.provider)
        appSiteAssociation = AppSiteAssociationRoutes(store: features.appSites)
        authorizeEndpoint = AuthorizeRoutes(provider: features.provider)
        clientRegistrationRoutes = ClientRegistrationRoutes(provider: features.provider)
        consoleRoutes = ConsoleRoutes(
            console: features.console, administration: features.consoleAdministration,
            publicURL: features.publicURL)
        interactionRoutes = InteractionRoutes(provider: features.provider)
        logoutEndpoint = LogoutRoutes(logout: features.logout)
        oauthRoutes = OAuthRoutes(tokens: features.tokens, issuers: features.issuers)
        userinfoEndpoint = UserinfoRoutes(provider: features.provider)
        publicRoutes = PublicRoutes(
            tokens: features.tokens, abuse: features.abuse, metrics: metrics, metricsTokenHash: metricsTokenHash)
        demoPage = DemoPageRoutes(store: features.settings, demoRoutes: demoRoutes)
        relatedOrigins = RelatedOriginsRoutes(service: features.relatedOrigins)
    }
}
