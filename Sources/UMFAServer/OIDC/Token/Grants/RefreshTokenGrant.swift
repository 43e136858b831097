import Foundation
import UMFAContract
import UMFAStorage

/// `grant_type=refresh_token` (RFC 6749 §6): every use rotates the token; a spent one presented
/// again revokes its whole family (RFC 9700 §4.14.2).
struct RefreshTokenGrant: GrantHandler {
    static let grantType = "refresh_token"
    let grants: OAuthGrants
    let userTokens: UserTokens
    /// Where a refresh token presented twice is recorded.
    let audit: AuditLog
    let applicationID: UUID

    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse {
        try input.requireRegistered(for: Self.grantType)
        let client = input.client
        let token = try input.form.require("refresh_token")
        // A bound token presented without its key is refused before it is spent, so whoever
        // holds a stolen one cannot use it up for its owner (checked again after consuming).
        // Only public clients' refresh tokens are bound: confidential clients skip the read.
        if !client.authenticationMethod.isConfidential,
            let live = try await grants.live(.refreshToken, token, as: UserTokens.RefreshGrant.self)
        {
            try checkBinding(jkt: live.payload.jkt, x5t: live.payload.x5t, input)
        }
        // The token is consumed and its successor stored with it (one statement on PostgreSQL,
        // which also reads the passkey and profile issuing checks): of concurrent
        // uses, on any instance, exactly one gets it (RFC 9700 §4.14.2, refresh token rotation).
        let (rotated, replayed) = try await grants.rotate(
            .refreshToken, token, successorPrefix: "umfa_rt_", as: UserTokens.RefreshGrant.self)
        if let family = replayed?.family {
            try await grants.revokeFamily(family)
            await audit.record(
                .refreshTokenReuseDetected, application: applicationID, actor: .client(client.clientID),
                userID: replayed?.subject, caller: input.caller, details: ["family_revoked": .bool(true)])
            throw OAuthError(
                code: .invalidGrant, "The refresh token was used before; all tokens of its family are revoked")
        }
        // A family revoked while this token was being issued (a spent token presented at the
        // same time on another instance) ends the token too; the rotating statement says so,
        // and stored no successor.
        guard let rotated, !rotated.found.familyRevoked else {
            throw OAuthError(code: .invalidGrant, "The refresh token is invalid, expired or revoked")
        }
        do {
            // The token's checks (RFC 6749 §6), then its tokens, the successor among them.
            return try await issue(rotated, input)
        } catch {
            // Refused after all: the successor is never handed out, so it is not kept either. A
            // failure to remove it leaves a grant nobody holds, which expires.
            if let successor = rotated.successor { _ = try? await grants.discard(.refreshToken, successor) }
            throw error
        }
    }

    /// The tokens of a rotated refresh token, its successor as the new refresh token.
    private func issue(_ rotated: OAuthGrants.Rotated<UserTokens.RefreshGrant>, _ input: GrantInput) async throws
        -> OAuthTokenResponse
    {
        let (client, grant) = (input.client, rotated.found.payload)
        guard grant.clientID.utf8.elementsEqual(client.clientID.utf8) else {
            try await grants.revokeFamily(grant.family)
            throw OAuthError(code: .invalidGrant, "The refresh token was issued to another client")
        }
        try checkBinding(jkt: grant.jkt, x5t: grant.x5t, input)
        var scopes = grant.scopes
        if let asked = input.form["scope"] {
            scopes = try GrantScopes.granted(asked, allowed: grant.scopes)
        }
        return try await userTokens.issue(
            to: client, signIn: grant.signIn, scopes: scopes, family: grant.family, nonce: nil,
            familyStarted: grant.familyStarted, refreshScopes: grant.scopes, jkt: input.binding.jkt,
            refreshJKT: grant.jkt, x5t: input.binding.x5t, refreshX5T: grant.x5t,
            rotation: UserTokens.Rotation(rotated, signIn: grant.signIn))
    }

    /// A public client's refresh token works only with a proof of its DPoP key (RFC 9449 §5)
    /// and with its certificate (RFC 8705 §4).
    private func checkBinding(jkt: String?, x5t: String?, _ input: GrantInput) throws {
        if let jkt, input.binding.jkt != jkt {
            throw OAuthError(code: .invalidDPoPProof, "The refresh token is bound to a DPoP key: send a proof of it")
        }
        try CertificateBinding.checkRefresh(bound: x5t, caller: input.caller)
    }
}
