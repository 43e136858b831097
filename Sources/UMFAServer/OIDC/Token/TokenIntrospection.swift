import Foundation
import UMFAContract
import UMFAStorage

/// Introspection (RFC 7662) at `<issuer>/introspect`: who may ask, and what a token says.
struct TokenIntrospection: Sendable {
    let issuer: OAuthIssuer
    let authentication: ClientAuthenticationChain
    let dpop: DPoPCheck
    let grants: OAuthGrants
    let accessTokens: AccessTokens
    /// Whether the passkey that signed a refresh token's user in is still registered.
    let signInCredentials: SignInCredentials
    /// The client a refresh token was issued to, whose `sub` of the user it shows.
    let store: any OAuthClientStore
    let subjects: SubjectIdentifiers

    /// RFC 7662 §2: a token that is not valid for this issuer now is `{"active": false}` and
    /// nothing more. Only an admin-made confidential client may ask (§4: a public client proves
    /// nothing about who is asking; a self-registered one could be anyone with an initial access
    /// token or a template's credentials, and would make introspection an oracle for leaked
    /// tokens), and a token issued to another client is inactive to it unless the application
    /// lists the caller in `introspection_clients` (docs/oidc-provider.md, "Introspection").
    func introspect(_ request: TokenRequest) async throws -> IntrospectionResponse {
        let token = try request.form.require("token")
        let client = try await authentication.registeredMethod(request)
        guard client.authenticationMethod.isConfidential else {
            throw OAuthError(code: .invalidClient, "Introspection needs a confidential client")
        }
        // RFC 7662 §2.3: the caller is not one this endpoint accepts, as for a public client.
        guard !client.isSelfRegistered else {
            throw OAuthError(code: .invalidClient, "A client that registered itself may not use introspection")
        }
        // RFC 9449: a proof sent here is checked as at the token endpoint (method, URL, time,
        // single use, nonce); one that fails is refused rather than ignored.
        _ = try await dpop.verify(proofs: request.dpopProofs, method: "POST", url: request.url)
        if let refresh = try await grants.live(.refreshToken, token, as: UserTokens.RefreshGrant.self) {
            let grant = refresh.payload
            guard mayIntrospect(issuedTo: grant.clientID, caller: client) else {
                return IntrospectionResponse(active: false)
            }
            // A revoked family, or a passkey deleted since it signed in, ends the refresh token.
            let registered = try await signInCredentials.isRegistered(grant.signIn, in: issuer.application.id)
            let revoked = try await grants.isFamilyRevoked(grant.family)
            if revoked || !registered {
                return IntrospectionResponse(active: false)
            }
            // RFC 9449 §6.2, RFC 8705 §3.2: the key or certificate the refresh token is bound to.
            let bound = grant.jkt != nil || grant.x5t != nil
            var answer = IntrospectionResponse(
                active: true, scope: grant.scopes.joined(separator: " "), clientID: grant.clientID,
                sub: try await subject(of: grant.signIn.userID, clientID: grant.clientID),
                exp: Int(refresh.record.expiresAt.timeIntervalSince1970),
                iat: Int(refresh.record.createdAt.timeIntervalSince1970), tokenType: "refresh_token",
                iss: issuer.issuer, cnf: bound ? TokenConfirmation(jkt: grant.jkt, x5tS256: grant.x5t) : nil)
            (answer.authTime, answer.acr) = (grant.signIn.authTime, grant.signIn.level.rawValue)
            answer.authorizationDetails = grant.signIn.authorizationDetails?.json
            return answer
        }
        guard let claims = try await accessTokens.validClaims(token),
            mayIntrospect(issuedTo: claims.clientID, caller: client)
        else {
            return IntrospectionResponse(active: false)
        }
        var answer = IntrospectionResponse(
            active: true, scope: claims.scope, clientID: claims.clientID, sub: claims.sub, exp: claims.exp,
            iat: claims.iat, tokenType: claims.cnf?.jkt == nil ? "Bearer" : "DPoP", iss: claims.iss,
            aud: claims.aud, jti: claims.jti, cnf: claims.cnf)
        (answer.authTime, answer.acr) = (claims.authTime, claims.acr)
        answer.authorizationDetails = claims.authorizationDetails
        return answer
    }

    /// The `sub` the client `clientID` sees of `userID` (pairwise or not); an access token
    /// carries its own.
    private func subject(of userID: String, clientID: String) async throws -> String {
        guard let client = try await store.oauthClient(applicationID: issuer.application.id, clientID: clientID)
        else { return userID }
        return subjects.subject(of: userID, for: client)
    }

    /// Whether `caller` may see a token issued to `clientID`: its own tokens, or any token when
    /// the application lists it in `introspection_clients` (a resource server).
    private func mayIntrospect(issuedTo clientID: String, caller: OAuthClientRecord) -> Bool {
        clientID.utf8.elementsEqual(caller.clientID.utf8)
            || issuer.application.introspectionClients.contains { $0.utf8.elementsEqual(caller.clientID.utf8) }
    }
}
