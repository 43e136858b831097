import Foundation
import Hummingbird
import UMFATokens

/// `GET` and `POST <issuer>/userinfo` (OpenID Connect Core §5.3) with the access token in the
/// `Authorization` header: `Bearer` (RFC 6750 §2.1; a POST body is not read), or `DPoP` with a
/// proof for a DPoP-bound token (RFC 9449 §7). The user's claims for the token's scopes. A
/// missing, expired, revoked or foreign token, or one that stands for no user, is 401 with
/// `WWW-Authenticate: Bearer error="invalid_token"`; a proof refused is 401 with
/// `WWW-Authenticate: DPoP error="invalid_dpop_proof"` (or `use_dpop_nonce` and `DPoP-Nonce`).
struct UserinfoEndpoint: Sendable {
    let services: ServerServices

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        do {
            let issuer = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
            guard let (scheme, token) = Self.credentials(request.headers[.authorization]) else {
                return challenge(nil, traceID: traceID)
            }
            guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token),
                claims.authTime != nil
            else {
                return challenge(
                    OAuthError(code: .invalidToken, "The access token is invalid, expired or revoked"),
                    scheme: scheme, traceID: traceID)
            }
            // RFC 9449 §7: a bound token only as `DPoP` with a proof of its key; `DPoP` only for one.
            if let bound = claims.cnf?.jkt {
                guard scheme == .dpop else {
                    return challenge(
                        OAuthError(
                            code: .invalidToken, "The access token is DPoP-bound: send it as Authorization: DPoP"),
                        scheme: .dpop, traceID: traceID)
                }
                do {
                    let proof = try await DPoPCheck(services: services, issuer: issuer)
                        .verify(
                            request.headers, method: request.method.rawValue, url: issuer.issuer + "/userinfo",
                            accessToken: token)
                    guard let proof else {
                        throw OAuthError(code: .invalidDPoPProof, "Send a DPoP proof with the DPoP-bound access token")
                    }
                    guard proof.thumbprint == bound else {
                        throw OAuthError(
                            code: .invalidDPoPProof, "The DPoP proof is not of the key the token is bound to")
                    }
                } catch let error as OAuthError {
                    return challenge(error, scheme: .dpop, traceID: traceID)
                }
            } else if scheme == .dpop {
                return challenge(
                    OAuthError(
                        code: .invalidToken, "The access token is not DPoP-bound: send it as Authorization: Bearer"),
                    scheme: .bearer, traceID: traceID)
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

    /// The schemes of RFC 6750 and RFC 9449 §7.1.
    enum Scheme: String {
        case bearer = "Bearer"
        case dpop = "DPoP"
    }

    /// The scheme and the token of an `Authorization` header, or `nil` without one.
    static func credentials(_ header: String?) -> (Scheme, String)? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        let name = header[..<space].lowercased()
        let token = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { return nil }
        switch name {
        case "bearer": return (.bearer, token)
        case "dpop": return (.dpop, token)
        default: return nil
        }
    }

    /// 401 with the challenge of RFC 6750 §3 or RFC 9449 §7.1 (with the algorithms a proof may
    /// use); without an error code when no token was sent; a `DPoP-Nonce` when one is needed.
    func challenge(_ error: OAuthError?, scheme: Scheme = .bearer, traceID: String) -> Response {
        let refusal = error ?? OAuthError(code: .invalidToken, "Send the access token: Authorization: Bearer <token>")
        var response = ErrorMap.oauthResponse(for: refusal, traceID: traceID, logger: services.logger)
        response.status = .unauthorized
        var challenge = #"\#(scheme.rawValue) realm="umfa""#
        if let error { challenge += #", error="\#(error.code.rawValue)""# }
        if scheme == .dpop { challenge += #", algs="\#(DPoPProof.algorithms.joined(separator: " "))""# }
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
