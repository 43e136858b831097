import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract

/// The handlers of the issuer routes: metadata and JWKS as JSON, and the form-body endpoints
/// (token, introspection, revocation), which answer every failure in RFC 6749 §5.2 shape.
struct OAuthRoutes: Sendable {
    let services: ServerServices

    /// RFC 8414 metadata (also the OpenID Connect discovery document) of the issuer in the path.
    var metadata: RouteHandler {
        RouteHandlers.plain { values, _ in
            try await OAuthIssuer.lookup(values.path("application_id"), services: services).metadata
        }
    }

    /// The issuer's JWK Set: the server's token keys.
    var jwks: RouteHandler {
        { request, context in
            _ = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
            var response = try JSONExchange.response(try await services.tokens.jwks())
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
    }

    /// An endpoint without a body; failures in RFC 6749 §5.2 shape.
    func plain<Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, _ call: @escaping @Sendable (OAuthIssuer, Caller) async throws -> Answer
    ) -> RouteHandler {
        { [services] request, context in
            let traceID = TraceID.from(request, context: context)
            do {
                let issuer = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
                return try JSONExchange.response(
                    try await call(issuer, context.caller(request, traceID: traceID)), status: status)
            } catch {
                return ErrorMap.oauthResponse(for: error, traceID: traceID, logger: services.logger)
            }
        }
    }

    /// A form-body endpoint: `call` answers a body (`nil`: an empty 200).
    func form<Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok,
        _ call: @escaping @Sendable (TokenEndpoint, OAuthForm, String?, Caller) async throws -> Answer?
    ) -> RouteHandler {
        { [services] request, context in
            let traceID = TraceID.from(request, context: context)
            do {
                let buffer = try await JSONExchange.collect(request, timeout: context.bodyReadTimeout)
                let parsed = Result { try OAuthForm(Data(buffer: buffer), contentType: request.headers[.contentType]) }
                // The issuer's application and the client the form names, in one statement; an
                // unknown issuer is still 404 before a malformed form is 400.
                let issuer = try await OAuthIssuer.lookup(
                    context.parameters.get("application_id"), services: services,
                    client: (try? parsed.get()).flatMap {
                        OAuthClientAuthentication.claimedClientID(
                            form: $0, authorization: request.headers[.authorization])
                    })
                let form = try parsed.get()
                let answer = try await call(
                    TokenEndpoint(services: services, issuer: issuer, headers: request.headers), form,
                    request.headers[.authorization],
                    context.caller(request, traceID: traceID))
                var response =
                    try answer.map { try JSONExchange.response($0, status: status) }
                    ?? Response(status: .ok, headers: [.cacheControl: "no-store"])
                if let pragma = HTTPField.Name("Pragma") { response.headers[pragma] = "no-cache" }
                return response
            } catch {
                return ErrorMap.oauthResponse(for: error, traceID: traceID, logger: services.logger)
            }
        }
    }
}
