import Foundation
import Hummingbird
import UMFAContract

/// Resolves the issuer of every route under `/oidc/{application_id}` once, before the route
/// runs; an unknown one is 404 in the route's error shape. On the client-authenticated routes it
/// reads the form first, so the client the form names is read in the issuer's statement (an
/// unknown issuer is still 404 before a malformed form is 400).
struct IssuerResolution: RouterMiddleware {
    typealias Context = UMFARequestContext
    let services: ServerServices
    /// Whether the route's form names an OAuth client (``APIOperation/Access/oauthClient``).
    let readsClientForm: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let applicationID = context.parameters.get("application_id")
        if readsClientForm {
            let buffer = try await JSONExchange.collect(request, timeout: context.bodyReadTimeout)
            let parsed = Result<OAuthForm, any Error> {
                try OAuthForm(Data(buffer: buffer), contentType: request.headers[.contentType])
            }
            let client = (try? parsed.get()).flatMap {
                OAuthClientAuthentication.claimedClientID(form: $0, authorization: request.headers[.authorization])
            }
            context.issuer = try await OAuthIssuer.lookup(applicationID, services: services, client: client)
            context.clientForm = parsed
        } else {
            context.issuer = try await OAuthIssuer.lookup(applicationID, services: services)
        }
        return try await next(request, context)
    }
}
