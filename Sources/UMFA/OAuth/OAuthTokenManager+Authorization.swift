import Foundation
import UMFAContract
import UMFAEncoding

/// The authorization request (RFC 6749 §4.1.1) and the redemption of its code: the manager
/// makes PKCE (RFC 7636), `state` and `nonce` and keeps them until the code comes back.
extension OAuthTokenManager {
    /// The URL of a new authorization request for a browser (`ASWebAuthenticationSession`, a
    /// custom tab) with PKCE S256, `state` and `nonce` the manager keeps for
    /// ``fetchAccessToken(redirectURL:dpop:)``, and `dpop_jkt` (RFC 9449 §10) when tokens are bound.
    /// - Parameters:
    ///   - prompt: `create` to offer account creation alone, `login`, …
    ///   - loginHint: an email address or user id.
    ///   - scopes: the scopes to ask for, when not the configuration's.
    public func authorizationRequestURL(prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil)
        async throws(ZSMError) -> URL
    {
        try await authorizationRequest(prompt: prompt, loginHint: loginHint, scopes: scopes).0
    }

    /// A new authorization request: its URL and secrets, which the manager keeps as pending.
    func authorizationRequest(prompt: String?, loginHint: String?, scopes: [String]?) async throws(ZSMError) -> (
        URL, AuthorizationSecrets
    ) {
        let metadata = try await metadata()
        let client = try currentClient()
        let scopes = scopes ?? configuration.scopes
        var secrets = AuthorizationSecrets()
        secrets.openID = scopes.contains("openid")
        // RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core §3.1.2.1.
        var query: [String: String] = [
            "client_id": client.id, "response_type": "code", "redirect_uri": configuration.redirectURI,
            "scope": scopes.joined(separator: " "), "state": secrets.state, "nonce": secrets.nonce,
            "code_challenge": secrets.challenge, "code_challenge_method": "S256",
        ]
        if let thumbprint = dpopThumbprint { query["dpop_jkt"] = thumbprint }
        if let prompt { query["prompt"] = prompt }
        if let loginHint { query["login_hint"] = loginHint }
        if let provider = configuration.parameterProvider {
            for (name, value) in await provider() where query[name] == nil { query[name] = value }
        }
        guard let url = URL(string: metadata.authorizationEndpoint + "?" + OAuthSession.encode(query)) else {
            throw ZSMError(.invalidConfiguration, "the authorization endpoint is not a URL")
        }
        pending.add(secrets)
        return (url, secrets)
    }

    /// `code` → tokens with `secrets`' verifier; the ID token verified with their `nonce`, and
    /// its claims. A verification that fails makes the answer an error.
    func redeem(_ code: String, _ secrets: AuthorizationSecrets, dpop: Dpop? = nil) async -> (
        TokenResponse, [String: JSONValue]
    ) {
        _ = pending.take(state: secrets.state)
        // The flow's key proves the request when it is given (RFC 9449 §10).
        let session = dpop.map { OAuthSession(configuration: configuration, key: $0.keyProvider) } ?? self.session
        let response = await withCurrentClient { client in
            await self.tokenRequest(
                [
                    "grant_type": "authorization_code", "code": code, "code_verifier": secrets.verifier,
                    "redirect_uri": self.configuration.redirectURI,
                ], client: client, session: session)
        }
        guard case .successfulToken(let tokens) = response else { return (response, [:]) }
        do throws(ZSMError) {
            guard let idToken = tokens.idToken else {
                if secrets.openID {
                    throw ZSMError(.serverError, "the issuer answered no ID token to an openid request")
                }
                return (response, [:])
            }
            return (response, try await verifyIDToken(idToken, nonce: secrets.nonce))
        } catch {
            return (.error(error), [:])
        }
    }
}
