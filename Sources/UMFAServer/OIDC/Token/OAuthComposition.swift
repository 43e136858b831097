/// Where an issuer's OAuth engine is put together: each endpoint and grant from exactly the
/// collaborators it uses, in one place, so no part of the engine holds the server's services.
struct OAuthComposition: Sendable {
    let services: ServerServices
    let issuer: OAuthIssuer

    private var grants: OAuthGrants { OAuthGrants(services: services, issuer: issuer) }
    private var accessTokens: AccessTokens { AccessTokens(services: services, issuer: issuer) }
    private var dpop: DPoPCheck { DPoPCheck(services: services, issuer: issuer) }

    /// The client authentication chain of every client-authenticated endpoint.
    var authentication: ClientAuthenticationChain {
        ClientAuthenticationChain(
            registered: OAuthClientAuthentication(services: services, issuer: issuer),
            attestation: ClientAttestationCheck(services: services, issuer: issuer))
    }

    /// The grant handlers, one per ``GrantRegistry/handlerTypes`` entry.
    var grantRegistry: GrantRegistry {
        let userTokens = UserTokens(services: services, issuer: issuer)
        return GrantRegistry([
            AuthorizationCodeGrant(grants: grants, userTokens: userTokens),
            RefreshTokenGrant(
                grants: grants, userTokens: userTokens, audit: services.audit, applicationID: issuer.application.id),
            ClientCredentialsGrant(accessTokens: accessTokens, application: issuer.application),
        ])
    }

    /// The token endpoint (RFC 6749 §3.2).
    var tokenPipeline: TokenPipeline {
        TokenPipeline(
            authentication: authentication, constraint: SenderConstraint(dpop: dpop), grants: grantRegistry,
            metrics: services.metrics)
    }

    /// Introspection (RFC 7662).
    var introspection: TokenIntrospection {
        TokenIntrospection(
            issuer: issuer, authentication: authentication, dpop: dpop, grants: grants, accessTokens: accessTokens,
            signInCredentials: services.signIns)
    }

    /// Revocation (RFC 7009).
    var revocation: TokenRevocation {
        TokenRevocation(authentication: authentication, grants: grants, accessTokens: accessTokens)
    }

    /// Pushed authorization requests (RFC 9126).
    var pushedAuthorization: PushedAuthorization {
        PushedAuthorization(issuer: issuer, authentication: authentication, grants: grants, store: services.store)
    }
}
