/// Where an issuer's OAuth engine is put together: each endpoint, grant and check from exactly
/// the collaborators it uses, in one place (``OpenIDProvider/engine(for:)``), so no part of the
/// engine holds more than it uses.
struct OAuthComposition: Sendable {
    let provider: OpenIDProvider
    let issuer: OAuthIssuer

    var grants: OAuthGrants { OAuthGrants(store: provider.store, now: provider.now, issuer: issuer) }

    var accessTokens: AccessTokens {
        AccessTokens(
            tokens: provider.tokens, store: provider.store, signIns: provider.signIns, sealed: provider.sealed,
            subjects: subjects, now: provider.now, issuer: issuer)
    }

    /// The `sub` each client of the issuer sees of a user (OpenID Connect Core §8).
    var subjects: SubjectIdentifiers {
        SubjectIdentifiers(serverSecret: provider.serverSecret, applicationID: issuer.application.id)
    }

    var dpop: DPoPCheck {
        DPoPCheck(grants: grants, serverSecret: provider.serverSecret, now: provider.now, issuer: issuer)
    }

    var sessions: SSOSessions { SSOSessions(grants: grants, signIns: provider.signIns) }

    /// The check of an access token presented at `url`, a resource of this issuer.
    func protectedResource(url: String) -> ProtectedResource {
        ProtectedResource(
            accessTokens: accessTokens, dpop: dpop, refusals: provider.refusals, issuer: issuer, url: url)
    }

    var clientAuthentication: OAuthClientAuthentication {
        OAuthClientAuthentication(
            store: provider.store, grants: grants, refusals: provider.refusals, abuse: provider.abuse,
            sealed: provider.sealed, mutualTLSAnchors: provider.mutualTLSAnchors, now: provider.now, issuer: issuer)
    }

    var attestation: ClientAttestationCheck {
        ClientAttestationCheck(
            store: provider.store, grants: grants, clientAuthentication: clientAuthentication,
            abuse: provider.abuse, attestationAnchors: provider.attestationAnchors, now: provider.now,
            issuer: issuer)
    }

    /// The client authentication chain of every client-authenticated endpoint.
    var authentication: ClientAuthenticationChain {
        ClientAuthenticationChain(registered: clientAuthentication, attestation: attestation)
    }

    var userTokens: UserTokens {
        UserTokens(
            tokens: provider.tokens, grants: grants, accessTokens: accessTokens, signIns: provider.signIns,
            userProfiles: provider.userProfiles, subjects: subjects, now: provider.now, issuer: issuer)
    }

    /// The grant handlers, one per ``GrantRegistry/handlerTypes`` entry.
    var grantRegistry: GrantRegistry {
        let userTokens = userTokens
        return GrantRegistry([
            AuthorizationCodeGrant(grants: grants, userTokens: userTokens),
            RefreshTokenGrant(
                grants: grants, userTokens: userTokens, audit: provider.audit, applicationID: issuer.application.id),
            ClientCredentialsGrant(accessTokens: accessTokens, application: issuer.application),
            DeviceCodeGrant(grants: grants, userTokens: userTokens, now: provider.now),
            CIBAGrant(
                grants: grants, userTokens: userTokens, store: provider.store, sealed: provider.sealed,
                now: provider.now),
        ])
    }

    /// The token endpoint (RFC 6749 §3.2).
    var tokenPipeline: TokenPipeline {
        TokenPipeline(
            authentication: authentication, constraint: SenderConstraint(dpop: dpop), grants: grantRegistry,
            metrics: provider.metrics)
    }

    /// Introspection (RFC 7662).
    var introspection: TokenIntrospection {
        TokenIntrospection(
            issuer: issuer, authentication: authentication, dpop: dpop, grants: grants, accessTokens: accessTokens,
            signInCredentials: provider.signIns, store: provider.store, subjects: subjects)
    }

    /// Revocation (RFC 7009).
    var revocation: TokenRevocation {
        TokenRevocation(authentication: authentication, grants: grants, accessTokens: accessTokens)
    }

    /// Pushed authorization requests (RFC 9126).
    var pushedAuthorization: PushedAuthorization {
        PushedAuthorization(issuer: issuer, authentication: authentication, grants: grants, store: provider.store)
    }

    /// Device authorization (RFC 8628 §3.1).
    var deviceAuthorization: DeviceAuthorization {
        DeviceAuthorization(issuer: issuer, authentication: authentication, grants: grants)
    }

    /// Backchannel authentication (OpenID CIBA Core 1.0 §7).
    var backchannelAuthentication: BackchannelAuthentication {
        BackchannelAuthentication(
            issuer: issuer, authentication: authentication, grants: grants, approvals: provider.outOfBand,
            hints: CIBAHints(
                store: provider.store, tokens: provider.tokens, loginTokens: provider.authentication.loginTokens,
                issuer: issuer, now: provider.now),
            sealed: provider.sealed)
    }

    /// The hosted device page's lookups and decisions (RFC 8628 §3.3).
    var deviceApproval: DeviceApproval {
        DeviceApproval(
            grants: grants, store: provider.store, abuse: provider.abuse, audit: provider.audit, now: provider.now,
            issuer: issuer)
    }

    /// The authorization request's checks and answers (RFC 6749 §4.1).
    var authorizationFlow: AuthorizationFlow {
        AuthorizationFlow(store: provider.store, grants: grants, issuer: issuer)
    }

    /// The decisions of the authorization endpoint.
    var authorize: AuthorizeService {
        AuthorizeService(
            flow: authorizationFlow, sessions: sessions, store: provider.store, subjects: subjects, now: provider.now)
    }

    /// The decisions of the userinfo endpoint at `url`.
    func userinfo(url: String) -> UserinfoService {
        UserinfoService(resource: protectedResource(url: url), userProfiles: provider.userProfiles)
    }

    /// The hosted pages' sign-in, account creation and consent; `flowKey` for the API-driven flow.
    func interactions(flowKey: String? = nil) -> InteractionService {
        InteractionService(
            flow: authorizationFlow, sessions: sessions, authentication: provider.authentication,
            registration: provider.registration, emailCodes: provider.emailCodes, audit: provider.audit,
            store: provider.store,
            abuse: provider.abuse, now: provider.now, issuer: issuer, flowKey: flowKey)
    }

    /// The API-driven flow bound to the flow token's key `flowKey`.
    func apiFlow(flowKey: String) -> APIFlowService {
        APIFlowService(
            interactions: interactions(flowKey: flowKey), grants: grants, outOfBand: provider.outOfBand,
            store: provider.store, abuse: provider.abuse, sealed: provider.sealed, now: provider.now, issuer: issuer,
            flowKey: flowKey)
    }

    /// Dynamic client registration (RFC 7591, RFC 7592) for `caller`.
    func clientRegistration(caller: Caller) -> ClientRegistrationService {
        ClientRegistrationService(
            registrationEndpoint: protectedResource(url: issuer.issuer + "/register"), store: provider.store,
            sealed: provider.sealed, sectorDocuments: provider.sectorDocuments, abuse: provider.abuse,
            audit: provider.audit, now: provider.now, issuer: issuer, caller: caller)
    }
}
