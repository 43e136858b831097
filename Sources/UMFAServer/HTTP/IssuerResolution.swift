import Hummingbird

/// Resolves the issuer of every route under `/oidc/{application_id}` once, before the route
/// runs; an unknown one is 404 in the route's error shape. The client-authenticated form routes
/// resolve theirs with the client the form names (``OAuthRoutes``), so they skip this.
struct IssuerResolution: RouterMiddleware {
    typealias Context = UMFARequestContext
    let issuers: IssuerDirectory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.issuer = try await issuers.issuer(context.parameters.get("application_id"))
        return try await next(request, context)
    }
}
