import Crypto
import Foundation
import HTTPTypes
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// The token endpoint (RFC 6749 §3.2) and its neighbours, introspection (RFC 7662,
/// TokenIntrospection.swift) and revocation (RFC 7009): form bodies in, RFC shapes out, every error per RFC 6749 §5.2.
struct TokenEndpoint: Sendable {
    let services: ServerServices
    let issuer: OAuthIssuer
    /// The request's headers, for its DPoP proof (RFC 9449 §5).
    var headers: HTTPFields = [:]

    /// `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client gets an access
    /// token for itself, for the scopes it asks for out of those it was given; a `dcr_template`
    /// client gets one with scope `dcr` alone when it asks for exactly that.
    func token(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthTokenResponse {
        do {
            let answer = try await grant(form: form, authorization: authorization, caller: caller)
            services.metrics.grant(form["grant_type"], outcome: "issued")
            return answer
        } catch let error as OAuthError {
            services.metrics.grant(form["grant_type"], outcome: error.code.rawValue)
            throw error
        }
    }

    private func grant(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthTokenResponse {
        let grantType = try form.require("grant_type")
        let attested = ClientAttestationCheck.isAttestation(form)
        let apiFlow = form["scope"] == ClientAttestationCheck.apiFlowScope
        if attested, grantType != "client_credentials" || !apiFlow {
            throw OAuthError.invalidRequest(
                "A client attestation is for grant_type client_credentials with scope \(ClientAttestationCheck.apiFlowScope)"
            )
        }
        let client =
            attested
            ? try await ClientAttestationCheck(services: services, issuer: issuer)
                .authenticate(form: form, authorization: authorization, caller: caller)
            : try await OAuthClientAuthentication(services: services, issuer: issuer)
                .authenticate(form: form, authorization: authorization, caller: caller)
        // RFC 9449 §5: a proof binds the access token (and a public client's refresh token).
        let proof = try await DPoPCheck(services: services, issuer: issuer)
            .verify(
                headers, method: "POST", url: issuer.endpointURL("token", mutualTLSAliasBase: caller.mutualTLSAliasBase)
            )
        if client.dpopBoundAccessTokens, proof == nil {
            throw OAuthError(
                code: .invalidDPoPProof, "This client's access tokens must be DPoP-bound: send a DPoP proof")
        }
        // RFC 8705 §3: the certificate a bound client presented, which its tokens will name.
        let x5t = try CertificateBinding.thumbprint(for: client, caller: caller)
        switch grantType {
        case "authorization_code":
            return try await redeemCode(form: form, client: client, proof: proof, x5t: x5t)
        case "refresh_token":
            return try await refresh(form: form, client: client, proof: proof, x5t: x5t, caller: caller)
        case "client_credentials":
            let scopes: [String]
            if apiFlow, client.scopes.contains(ClientAttestationCheck.apiFlowScope) {
                // docs/contract.md §6: the flow token, for public clients too; attested when required.
                if client.attestationRequired, !attested {
                    throw OAuthError(
                        code: .invalidClient, "This client must present a client attestation for the flow token")
                }
                scopes = [ClientAttestationCheck.apiFlowScope]
            } else if client.dcrTemplate, form["scope"] == ClientRegistrationService.scope {
                // docs/contract.md §5: a template may always get a token to register clients with, and
                // that token is good for nothing else.
                scopes = [ClientRegistrationService.scope]
            } else {
                guard client.grantTypes.contains(grantType) else {
                    throw OAuthError(code: .unauthorizedClient, "The client may not use client_credentials")
                }
                scopes = try grantedScopes(form["scope"], allowed: client.scopes)
            }
            let (token, _) = try await AccessTokens(services: services, issuer: issuer)
                .issue(
                    to: client, subject: client.clientID, scopes: scopes,
                    audience: try Self.audience(form["resource"], application: issuer.application),
                    jkt: proof?.thumbprint, x5t: x5t)
            return OAuthTokenResponse(
                accessToken: token, tokenType: proof == nil ? "Bearer" : "DPoP",
                expiresIn: client.accessTokenTTLSeconds, scope: scopes.joined(separator: " "))
        default:
            throw OAuthError(
                code: .unsupportedGrantType,
                "grant_type must be one of \(OAuthIssuer.grantTypes.joined(separator: ", "))")
        }
    }

    /// `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): the code once, for the
    /// client it was issued to, with the same redirect URI and the PKCE verifier. A code presented
    /// twice revokes everything issued with it (RFC 6749 §4.1.2).
    private func redeemCode(form: OAuthForm, client: OAuthClientRecord, proof: DPoPProof?, x5t: String?)
        async throws -> OAuthTokenResponse
    {
        guard client.grantTypes.contains("authorization_code") else {
            throw OAuthError(code: .unauthorizedClient, "The client may not use authorization_code")
        }
        let code = try form.require("code")
        let redirectURI = try form.require("redirect_uri")
        let verifier = try form.require("code_verifier")
        // RFC 7636 §4.1: 43 to 128 unreserved characters.
        guard (43...128).contains(verifier.utf8.count),
            verifier.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~".unicodeScalars.contains($0))
            })
        else { throw OAuthError.invalidRequest("code_verifier must be 43 to 128 unreserved characters") }
        let grants = OAuthGrants(services: services, issuer: issuer)
        let (found, replayed) = try await grants.consume(
            .authorizationCode, code, as: AuthorizationFlow.CodeGrant.self)
        if let family = replayed?.family {
            try await grants.revokeFamily(family)
            throw OAuthError(
                code: .invalidGrant, "The code was used before; the tokens issued with it are revoked")
        }
        guard let grant = found?.payload else {
            throw OAuthError(code: .invalidGrant, "The code is invalid or expired")
        }
        guard grant.request.clientID.utf8.elementsEqual(client.clientID.utf8) else {
            throw OAuthError(code: .invalidGrant, "The code was issued to another client")
        }
        guard grant.request.redirectURI.utf8.elementsEqual(redirectURI.utf8) else {
            throw OAuthError(code: .invalidGrant, "redirect_uri differs from the authorization request's")
        }
        let computed = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
        guard constantTimeEqual(Array(computed.utf8), Array(grant.request.codeChallenge.utf8)) else {
            throw OAuthError(code: .invalidGrant, "code_verifier does not match the code_challenge")
        }
        // RFC 9449 §10: a code bound by dpop_jkt needs a proof of that key.
        if let bound = grant.request.dpopJKT, proof?.thumbprint != bound {
            throw OAuthError(code: .invalidDPoPProof, "The code is bound to a DPoP key (dpop_jkt): send a proof of it")
        }
        return try await UserTokens(services: services, issuer: issuer).issue(
            to: client, signIn: grant.signIn, scopes: grant.request.scopes, family: grant.family,
            nonce: grant.request.nonce, jkt: proof?.thumbprint,
            refreshJKT: client.authenticationMethod.isConfidential ? nil : proof?.thumbprint, x5t: x5t,
            refreshX5T: client.authenticationMethod.isConfidential ? nil : x5t)
    }

    /// `grant_type=refresh_token` (RFC 6749 §6): every use rotates the token; a spent one
    /// presented again revokes its whole family (RFC 9700 §4.14.2).
    private func refresh(
        form: OAuthForm, client: OAuthClientRecord, proof: DPoPProof?, x5t: String?, caller: Caller
    ) async throws -> OAuthTokenResponse {
        guard client.grantTypes.contains("refresh_token") else {
            throw OAuthError(code: .unauthorizedClient, "The client may not use refresh_token")
        }
        let token = try form.require("refresh_token")
        let grants = OAuthGrants(services: services, issuer: issuer)
        // A bound token presented without its key is refused before it is spent, so whoever
        // holds a stolen one cannot use it up for its owner (checked again after consuming).
        // Only public clients' refresh tokens are bound: confidential clients skip the read.
        if !client.authenticationMethod.isConfidential,
            let live = try await grants.live(.refreshToken, token, as: UserTokens.RefreshGrant.self)
        {
            if let bound = live.payload.jkt, proof?.thumbprint != bound {
                throw OAuthError(
                    code: .invalidDPoPProof, "The refresh token is bound to a DPoP key: send a proof of it")
            }
            try CertificateBinding.checkRefresh(bound: live.payload.x5t, caller: caller)
        }
        let (found, replayed) = try await grants.consume(.refreshToken, token, as: UserTokens.RefreshGrant.self)
        if let family = replayed?.family {
            try await grants.revokeFamily(family)
            await services.audit.record(
                .refreshTokenReuseDetected, application: issuer.application.id, actor: .client(client.clientID),
                userID: replayed?.subject, caller: caller, details: ["family_revoked": .bool(true)])
            throw OAuthError(
                code: .invalidGrant, "The refresh token was used before; all tokens of its family are revoked")
        }
        // A family revoked while this token was being issued (a spent token presented at the
        // same time on another instance) ends the token too; the consuming statement says so.
        guard let found, !found.familyRevoked else {
            throw OAuthError(code: .invalidGrant, "The refresh token is invalid, expired or revoked")
        }
        let grant = found.payload
        guard grant.clientID.utf8.elementsEqual(client.clientID.utf8) else {
            try await grants.revokeFamily(grant.family)
            throw OAuthError(code: .invalidGrant, "The refresh token was issued to another client")
        }
        // RFC 9449 §5: a public client's refresh token works only with a proof of its key.
        if let bound = grant.jkt, proof?.thumbprint != bound {
            throw OAuthError(code: .invalidDPoPProof, "The refresh token is bound to a DPoP key: send a proof of it")
        }
        // RFC 8705 §4: a public client's refresh token works only with its certificate.
        try CertificateBinding.checkRefresh(bound: grant.x5t, caller: caller)
        var scopes = grant.scopes
        if let asked = form["scope"] {
            scopes = try grantedScopes(asked, allowed: grant.scopes)
        }
        return try await UserTokens(services: services, issuer: issuer).issue(
            to: client, signIn: grant.signIn, scopes: scopes, family: grant.family, nonce: nil,
            familyStarted: grant.familyStarted, refreshScopes: grant.scopes, jkt: proof?.thumbprint,
            refreshJKT: grant.jkt, x5t: x5t, refreshX5T: grant.x5t)
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
        // A refresh token ends its whole family, access tokens included (docs/contract.md §5).
        if let refresh = try await OAuthGrants(services: services, issuer: issuer)
            .live(.refreshToken, token, as: UserTokens.RefreshGrant.self)
        {
            if refresh.payload.clientID.utf8.elementsEqual(client.clientID.utf8) {
                try await OAuthGrants(services: services, issuer: issuer).revokeFamily(refresh.payload.family)
            }
            return
        }
        guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token),
            claims.clientID.utf8.elementsEqual(client.clientID.utf8)
        else { return }
        try await services.store.revokeAccessToken(
            jti: claims.jti, applicationID: issuer.application.id,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }

    /// The audience a `resource` parameter asks for (RFC 8707 §2): one of the application's
    /// registered resource indicators, byte for byte, else `invalid_target`; none asked means the
    /// issuer itself.
    static func audience(_ resource: String?, application: ApplicationRecord) throws -> String? {
        guard let resource else { return nil }
        guard application.resourceIndicators.contains(where: { $0.utf8.elementsEqual(resource.utf8) }) else {
            throw OAuthError(
                code: .invalidTarget, "resource must be one of the resource indicators registered for this application")
        }
        return resource
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
