import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract
import UMFATokens

/// The handlers of the issuer routes: JWKS, and the form-body endpoints (token, introspection,
/// revocation, PAR), whose edge parses the request into a ``TokenRequest`` and renders the
/// answer; failures take the RFC 6749 §5.2 shape of the route group (``ErrorRendering``).
struct OAuthRoutes: Sendable {
    /// The server's token keys, for JWKS.
    let tokens: TokenService
    let issuers: IssuerDirectory

    /// The issuer's JWK Set: the server's token keys.
    var jwks: RouteHandler {
        { [tokens] _, _ in
            var response = try JSONExchange.response(try await tokens.jwks())
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
    }

    /// A form-body endpoint: `call` answers a body (`nil`: an empty 200), never cached. The
    /// issuer is read with the client the form names, in one statement; an unknown issuer is
    /// 404 before a malformed form is 400.
    func form<Answer: Encodable & Sendable>(
        _ route: OperationRoute,
        _ call: @escaping @Sendable (OAuthIssuer, TokenRequest) async throws -> Answer?
    ) -> RouteHandler {
        let endpoint = route.declaration.path.split(separator: "/").last.map(String.init) ?? ""
        return { [issuers] request, context in
            let traceID = TraceID.from(request, context: context)
            let buffer = try await JSONExchange.collect(request, timeout: context.bodyReadTimeout)
            let authorization = request.headers[.authorization]
            let parsed = Result<OAuthForm, any Error> {
                try OAuthForm(Data(buffer: buffer), contentType: request.headers[.contentType])
            }
            let client = (try? parsed.get()).flatMap {
                OAuthClientAuthentication.claimedClientID(form: $0, authorization: authorization)
            }
            let issuer = try await issuers.issuer(context.parameters.get("application_id"), namingClient: client)
            let caller = context.caller(request, traceID: traceID)
            let tokenRequest = TokenRequest(
                form: try parsed.get(), authorization: authorization,
                dpopProofs: request.headers[values: .dpop], caller: caller,
                url: caller.address.url(of: endpoint, at: issuer))
            let answer = try await call(issuer, tokenRequest)
            var response =
                try answer.map { try JSONExchange.response($0, status: route.status) }
                ?? Response(status: .ok, headers: [.cacheControl: "no-store"])
            if let pragma = HTTPField.Name("Pragma") { response.headers[pragma] = "no-cache" }
            return response
        }
    }
}
