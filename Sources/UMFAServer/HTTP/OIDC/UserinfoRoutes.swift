import Foundation
import Hummingbird
import UMFATokens

/// `GET` and `POST <issuer>/userinfo` (OpenID Connect Core §5.3) with the access token in the
/// `Authorization` header: `Bearer` (RFC 6750 §2.1; a POST body is not read), or `DPoP` with a
/// proof for a DPoP-bound token (RFC 9449 §7). The user's claims for the token's scopes. A
/// missing, expired, revoked or foreign token, or one that stands for no user, is 401 with
/// `WWW-Authenticate: Bearer error="invalid_token"`; a proof refused is 401 with
/// `WWW-Authenticate: DPoP error="invalid_dpop_proof"` (or `use_dpop_nonce` and `DPoP-Nonce`).
struct UserinfoRoutes: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try context.resolvedIssuer()
        let userinfo = provider.engine(for: issuer).userinfo(url: context.address.url(of: "userinfo", at: issuer))
        do {
            var response = try JSONExchange.response(try await userinfo.claims(of: .init(request, context: context)))
            response.headers[.cacheControl] = "no-store"
            return response
        } catch is UserinfoService.InsufficientScope {
            var response = ErrorMap.oauthResponse(
                for: OAuthError.invalidRequest("The access token was not granted the openid scope"),
                traceID: traceID, logger: provider.logger)
            response.status = .forbidden
            response.headers[.wwwAuthenticate] = #"Bearer error="insufficient_scope", scope="openid""#
            return response
        }
    }
}
