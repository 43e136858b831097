import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract

/// The HTTP edge of dynamic client registration (RFC 7591) and its management (RFC 7592):
/// reads the bearer token, the path's `client_id` and the metadata from the request, calls
/// ``ClientRegistrationService`` and writes its answer, never cached. The issuer comes resolved
/// (``IssuerResolution``); failures take the route group's RFC 6749 §5.2 shape, a refused token
/// its `WWW-Authenticate` challenge (``ErrorRendering``).
struct ClientRegistrationRoutes: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    /// `POST <issuer>/register`.
    func register(_ route: OperationRoute) -> RouteHandler {
        { [provider] request, context in
            let service = try Self.service(provider, request, context)
            let answer = try await service.register(presented: .init(request, context: context)) {
                try await Self.metadata(request, context)
            }
            return try JSONExchange.response(answer, status: route.status)
        }
    }

    /// `GET <issuer>/register/<client_id>`.
    func read(_ route: OperationRoute) -> RouteHandler {
        { [provider] request, context in
            let answer = try await Self.service(provider, request, context)
                .read(clientID: Self.clientID(request, context), presented: .init(request, context: context))
            return try JSONExchange.response(answer, status: route.status)
        }
    }

    /// `PUT <issuer>/register/<client_id>`.
    func update(_ route: OperationRoute) -> RouteHandler {
        { [provider] request, context in
            let answer = try await Self.service(provider, request, context)
                .update(clientID: Self.clientID(request, context), presented: .init(request, context: context)) {
                    try await Self.metadata(request, context)
                }
            return try JSONExchange.response(answer, status: route.status)
        }
    }

    /// `DELETE <issuer>/register/<client_id>`: no body.
    func delete(_ route: OperationRoute) -> RouteHandler {
        { [provider] request, context in
            try await Self.service(provider, request, context)
                .delete(clientID: Self.clientID(request, context), presented: .init(request, context: context))
            return Response(status: route.status, headers: [.cacheControl: "no-store"])
        }
    }

    private static func service(_ provider: OpenIDProvider, _ request: Request, _ context: UMFARequestContext) throws
        -> ClientRegistrationService
    {
        let caller = context.caller(request, traceID: TraceID.from(request, context: context))
        return provider.engine(for: try context.resolvedIssuer()).clientRegistration(caller: caller)
    }

    private static func clientID(_ request: Request, _ context: UMFARequestContext) -> String? {
        RequestValues(request: request, context: context).path("client_id")
    }

    /// The metadata of the body; a body that does not decode is `invalid_client_metadata`
    /// (RFC 7591 §3.2.2).
    private static func metadata(_ request: Request, _ context: UMFARequestContext) async throws
        -> ClientRegistrationRequest
    {
        do {
            return try await JSONExchange.read(request, context: context).decode(ClientRegistrationRequest.self)
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw OAuthError(code: .invalidClientMetadata, error.message)
        }
    }
}
