import Foundation
import Hummingbird
import UMFAContract

/// The hosted pages' JSON routes under an issuer (resolved by ``IssuerResolution``): decode, call ``InteractionService``, encode,
/// and set the SSO session cookie after a sign-in. Errors take UMFA's JSON error shape, which
/// the page shows to the person.
struct InteractionRoutes: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    /// A route whose answer is a plain body.
    func route<Body: ContractBody, Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (InteractionService, Body, Caller) async throws -> Answer
    ) -> RouteHandler {
        { [provider] request, context in
            let input = try await JSONExchange.read(Body.self, request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            let body = try input.decode()
            let issuer = try context.resolvedIssuer()
            return try JSONExchange.response(
                try await call(provider.engine(for: issuer).interactions(), body, caller))
        }
    }

    /// A route that may start the SSO session.
    func step<Body: ContractBody>(
        _ call: @escaping @Sendable (InteractionService, Body, Caller) async throws -> InteractionService.Step
    ) -> RouteHandler {
        { [provider] request, context in
            let input = try await JSONExchange.body(of: request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            let body = try input.decode(Body.self)
            let issuer = try context.resolvedIssuer()
            let step = try await call(provider.engine(for: issuer).interactions(), body, caller)
            var response = try JSONExchange.response(step.response)
            response.headers[.cacheControl] = "no-store"
            if let cookie = step.setCookie { response.headers[.setCookie] = cookie }
            return response
        }
    }
}
