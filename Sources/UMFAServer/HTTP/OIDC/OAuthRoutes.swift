import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract

/// The handlers of the issuer routes: JWKS, and the form-body endpoints (token, introspection,
/// revocation, PAR). The issuer and the form come resolved (``IssuerResolution``); failures take
/// the RFC 6749 §5.2 shape of the route group (``ErrorRendering``).
struct OAuthRoutes: Sendable {
    let services: ServerServices

    /// The issuer's JWK Set: the server's token keys.
    var jwks: RouteHandler {
        { [services] _, _ in
            var response = try JSONExchange.response(try await services.tokens.jwks())
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
    }

    /// A form-body endpoint: `call` answers a body (`nil`: an empty 200), never cached.
    func form<Answer: Encodable & Sendable>(
        _ route: OperationRoute,
        _ call: @escaping @Sendable (TokenEndpoint, OAuthForm, String?, Caller) async throws -> Answer?
    ) -> RouteHandler {
        { [services] request, context in
            let traceID = TraceID.from(request, context: context)
            let issuer = try context.resolvedIssuer()
            guard let parsed = context.clientForm else { throw ServiceError.internalFailure }
            let form = try parsed.get()
            let answer = try await call(
                TokenEndpoint(services: services, issuer: issuer, headers: request.headers), form,
                request.headers[.authorization],
                context.caller(request, traceID: traceID))
            var response =
                try answer.map { try JSONExchange.response($0, status: route.status) }
                ?? Response(status: .ok, headers: [.cacheControl: "no-store"])
            if let pragma = HTTPField.Name("Pragma") { response.headers[pragma] = "no-cache" }
            return response
        }
    }
}
