/// Revocation (RFC 7009) at `<issuer>/revoke`.
struct TokenRevocation: Sendable {
    let authentication: ClientAuthenticationChain
    let grants: OAuthGrants
    let accessTokens: AccessTokens

    /// Revokes a token issued to the calling client: a refresh token ends its whole family,
    /// access tokens included (docs/contract.md §5). Any other token (unknown, expired, another
    /// client's) is answered 200 and left alone, as §2.2 allows.
    func revoke(_ request: TokenRequest) async throws {
        let token = try request.form.require("token")
        let client = try await authentication.registeredMethod(request)
        if let hint = request.form["token_type_hint"], !["access_token", "refresh_token"].contains(hint) {
            throw OAuthError(code: .unsupportedTokenType, "token_type_hint must be access_token or refresh_token")
        }
        if let refresh = try await grants.live(.refreshToken, token, as: UserTokens.RefreshGrant.self) {
            if refresh.payload.clientID.utf8.elementsEqual(client.clientID.utf8) {
                try await grants.revokeFamily(refresh.payload.family)
            }
            return
        }
        guard let claims = try await accessTokens.validClaims(token),
            claims.clientID.utf8.elementsEqual(client.clientID.utf8)
        else { return }
        try await accessTokens.revoke(claims)
    }
}
