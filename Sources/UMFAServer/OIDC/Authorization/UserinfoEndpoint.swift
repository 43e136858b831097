import Foundation
import Hummingbird

/// `GET` and `POST <issuer>/userinfo` (OpenID Connect Core §5.3) with a Bearer access token in
/// the `Authorization` header (RFC 6750 §2.1; a POST body is not read): the user's claims for the token's scopes. A missing, expired, revoked or foreign token,
/// or one that stands for no user, is 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
struct UserinfoEndpoint: Sendable {
    let services: ServerServices

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        do {
            let issuer = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
                case let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), !token.isEmpty
            else {
                return challenge(nil, traceID: traceID)
            }
            guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token),
                claims.authTime != nil
            else {
                return challenge(
                    OAuthError(code: .invalidToken, "The access token is invalid, expired or revoked"),
                    traceID: traceID)
            }
            let scopes = claims.scope.split(separator: " ").map(String.init)
            guard scopes.contains("openid") else {
                var response = ErrorMap.oauthResponse(
                    for: OAuthError.invalidRequest("The access token was not granted the openid scope"),
                    traceID: traceID, logger: services.logger)
                response.status = .forbidden
                response.headers[.wwwAuthenticate] = #"Bearer error="insufficient_scope", scope="openid""#
                return response
            }
            let userinfo = try await UserProfiles(services: services)
                .claims(applicationID: issuer.application.id, userID: claims.sub, scopes: scopes)
            var response = try JSONExchange.response(userinfo)
            response.headers[.cacheControl] = "no-store"
            return response
        } catch {
            return ErrorMap.oauthResponse(for: error, traceID: traceID, logger: services.logger)
        }
    }

    /// 401 with the RFC 6750 §3 challenge; without an error code when no token was sent.
    func challenge(_ error: OAuthError?, traceID: String) -> Response {
        let refusal = error ?? OAuthError(code: .invalidToken, "Send the access token: Authorization: Bearer <token>")
        var response = ErrorMap.oauthResponse(for: refusal, traceID: traceID, logger: services.logger)
        var challenge = #"Bearer realm="umfa""#
        if let error { challenge += #", error="\#(error.code.rawValue)""# }
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
