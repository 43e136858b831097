import Foundation
import UMFAContract
import UMFAStorage

/// The token endpoint (RFC 6749 §3.2) and its neighbours, introspection (RFC 7662) and
/// revocation (RFC 7009): form bodies in, RFC shapes out, every error per RFC 6749 §5.2.
struct TokenEndpoint: Sendable {
    let services: ServerServices
    let issuer: OAuthIssuer

    /// `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client gets an access
    /// token for itself, for the scopes it asks for out of those it was given.
    func token(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthTokenResponse {
        let grantType = try form.require("grant_type")
        let client = try await OAuthClientAuthentication(services: services, issuer: issuer)
            .authenticate(form: form, authorization: authorization, caller: caller)
        switch grantType {
        case "client_credentials":
            guard client.grantTypes.contains(grantType) else {
                throw OAuthError(code: .unauthorizedClient, "The client may not use client_credentials")
            }
            let scopes = try grantedScopes(form["scope"], allowed: client.scopes)
            let (token, _) = try await AccessTokens(services: services, issuer: issuer)
                .issue(to: client, subject: client.clientID, scopes: scopes, audience: form["resource"])
            return OAuthTokenResponse(
                accessToken: token, tokenType: "Bearer", expiresIn: client.accessTokenTTLSeconds,
                scope: scopes.joined(separator: " "))
        default:
            throw OAuthError(
                code: .unsupportedGrantType,
                "grant_type must be one of \(OAuthIssuer.grantTypes.joined(separator: ", "))")
        }
    }

    /// RFC 7662: any confidential client of the issuer may ask (a public client proves nothing
    /// about who is asking, RFC 7662 §4); a token that is not valid for this issuer now is
    /// `{"active": false}` and nothing more.
    func introspect(form: OAuthForm, authorization: String?, caller: Caller) async throws -> IntrospectionResponse {
        let token = try form.require("token")
        let client = try await OAuthClientAuthentication(services: services, issuer: issuer)
            .authenticate(form: form, authorization: authorization, caller: caller)
        guard client.authenticationMethod.isConfidential else {
            throw OAuthError(code: .invalidClient, "Introspection needs a confidential client")
        }
        guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token) else {
            return IntrospectionResponse(active: false)
        }
        return IntrospectionResponse(
            active: true, scope: claims.scope, clientID: claims.clientID, sub: claims.sub, exp: claims.exp,
            iat: claims.iat, tokenType: "Bearer", iss: claims.iss, aud: claims.aud, jti: claims.jti)
    }

    /// RFC 7009: revokes an access token issued to the calling client; any other token (unknown,
    /// expired, another client's) is answered 200 and left alone, as §2.2 allows.
    func revoke(form: OAuthForm, authorization: String?, caller: Caller) async throws {
        let token = try form.require("token")
        let client = try await OAuthClientAuthentication(services: services, issuer: issuer)
            .authenticate(form: form, authorization: authorization, caller: caller)
        if let hint = form["token_type_hint"], !["access_token", "refresh_token"].contains(hint) {
            throw OAuthError(code: .unsupportedTokenType, "token_type_hint must be access_token or refresh_token")
        }
        guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token),
            claims.clientID.utf8.elementsEqual(client.clientID.utf8)
        else { return }
        try await services.store.revokeAccessToken(
            jti: claims.jti, applicationID: issuer.application.id,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }

    /// The scopes asked for, each one the client was given; none asked means all it was given.
    private func grantedScopes(_ asked: String?, allowed: [String]) throws -> [String] {
        guard let asked else { return allowed }
        let scopes: [String]
        do {
            scopes = try OAuthClientSettings.scopes(asked)
        } catch {
            throw OAuthError(code: .invalidScope, "scope must be space-separated scope tokens")
        }
        guard let refused = scopes.first(where: { !allowed.contains($0) }) else { return scopes }
        throw OAuthError(code: .invalidScope, "The client may not ask for the scope \(refused)")
    }
}
