import Crypto
import Foundation
import Synchronization
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// The OAuth token manager: the issuer's metadata, the flow token, code → tokens with PKCE and
/// DPoP, refresh, revocation and ID-token verification, for one client of one issuer.
///
/// Every request carries a DPoP proof of the device's key (kept sealed in the storage location),
/// so the tokens are bound to this device (RFC 9449). When the configured client is refused and
/// the configuration names a DCR template, the manager registers a client of its own (RFC 7591)
/// once and keeps it on the device.
public final class OAuthTokenManager: Sendable {
    /// The configuration.
    public let configuration: OAuthConfiguration
    let session: OAuthSession
    private let clients: DynamicClients?
    private let cachedMetadata = Mutex<AuthorizationServerMetadata?>(nil)
    /// Whether this manager registered a client already: it registers at most one, so a template
    /// whose clients the server refuses cannot make it register one per request.
    private let registered = Mutex(false)

    /// A manager whose DPoP key lives in `device`'s storage location (made on first use), and
    /// whose dynamic client, when one is registered, is kept there too.
    public convenience init(configuration: OAuthConfiguration, device: ZSMConfig) throws(ZSMError) {
        let key = try DPoPKey.stored(config: device, issuer: configuration.issuerString)
        self.init(configuration: configuration, dpopKey: key, clients: DynamicClients(config: device))
    }

    /// A manager with a DPoP key of the app's (not stored by the SDK).
    public convenience init(configuration: OAuthConfiguration, dpopKey: DPoPKey) {
        self.init(configuration: configuration, dpopKey: dpopKey, clients: nil)
    }

    init(configuration: OAuthConfiguration, dpopKey: DPoPKey, clients: DynamicClients?) {
        self.configuration = configuration
        self.session = OAuthSession(configuration: configuration, key: dpopKey)
        self.clients = clients
    }

    /// The DPoP key's thumbprint (`cnf.jkt` of the tokens).
    public var dpopThumbprint: String { session.key.thumbprint }

    /// The issuer's metadata (OpenID Connect Discovery), fetched once.
    public func metadata() async throws(ZSMError) -> AuthorizationServerMetadata {
        if let cached = cachedMetadata.withLock({ $0 }) { return cached }
        guard let url = URL(string: configuration.issuerString + "/.well-known/openid-configuration") else {
            throw ZSMError(.invalidConfiguration, "the issuer is not a URL")
        }
        let answer = try await session.send("GET", url)
        guard answer.status == 200,
            let metadata = try? JSONDecoder().decode(AuthorizationServerMetadata.self, from: answer.data),
            metadata.issuer.utf8.elementsEqual(configuration.issuerString.utf8)
        else {
            throw ZSMError(
                .invalidConfiguration, "the issuer's discovery document is missing or names another issuer",
                httpStatus: answer.status)
        }
        cachedMetadata.withLock { $0 = metadata }
        return metadata
    }

    /// The flow token (DESIGN.md §6): `client_credentials` with scope `urn:umfa:api-flow`, bound
    /// to the device's DPoP key. A refused client falls back to the DCR template.
    public func flowToken() async -> TokenResponse {
        await withClientFallback { client in
            await self.tokenRequest(
                ["grant_type": "client_credentials", "scope": Self.flowScope], client: client, attesting: true)
        }
    }

    /// Code → tokens (RFC 6749 §4.1.3, RFC 7636 §4.5), bound to the device's DPoP key.
    public func exchange(code: String, codeVerifier: String) async -> TokenResponse {
        await withCurrentClient { client in
            await self.tokenRequest(
                [
                    "grant_type": "authorization_code", "code": code, "code_verifier": codeVerifier,
                    "redirect_uri": self.configuration.redirectURI,
                ], client: client)
        }
    }

    /// A new access token (and a new refresh token: UMFA rotates them) for `refreshToken`.
    public func refresh(_ refreshToken: String, scope: String? = nil) async -> TokenResponse {
        var form = ["grant_type": "refresh_token", "refresh_token": refreshToken]
        if let scope { form["scope"] = scope }
        return await withCurrentClient { client in await self.tokenRequest(form, client: client) }
    }

    /// Revokes `token` (RFC 7009); a refresh token takes its whole family with it.
    public func revoke(_ token: String) async throws(ZSMError) {
        let metadata = try await metadata()
        guard let url = URL(string: metadata.revocationEndpoint), let audience = URL(string: metadata.tokenEndpoint)
        else { throw ZSMError(.invalidConfiguration, "the revocation endpoint is not a URL") }
        var form = ["token": token]
        var headers: [String: String] = [:]
        let client = try currentClient()
        try await client.authentication.outsideFlowToken.apply(
            clientID: client.id, tokenEndpoint: audience, now: configuration.now(), form: &form, headers: &headers,
            challenge: attestationChallenge)
        let answer = try await session.send("POST", url, body: .form(form), headers: headers)
        guard answer.status == 200 else {
            let error = try? JSONDecoder().decode(OAuthErrorAnswer.self, from: answer.data)
            throw ZSMError(
                .serverError, "revocation was refused: \(error?.error ?? "HTTP \(answer.status)")",
                httpStatus: answer.status, traceId: error?.traceID)
        }
        configuration.logger.info("a token was revoked")
    }

    /// The claims of `idToken` once its signature (the issuer's JWKS) and claims check out.
    public func verifyIDToken(_ idToken: String, nonce: String?) async throws(ZSMError) -> [String: JSONValue] {
        let metadata = try await metadata()
        guard let url = URL(string: metadata.jwksURI) else {
            throw ZSMError(.invalidConfiguration, "the issuer's jwks_uri is not a URL")
        }
        let answer = try await session.send("GET", url)
        guard answer.status == 200 else {
            throw ZSMError(.serverError, "the issuer's keys could not be fetched", httpStatus: answer.status)
        }
        return try IDTokenVerifier(
            issuer: configuration.issuerString, clientID: try currentClient().id, now: configuration.now()
        ).verify(idToken, jwks: answer.data, nonce: nonce)
    }

    // MARK: Parts

    static let flowScope = "urn:umfa:api-flow"

    /// The client in use: the dynamic one when registered, else the configured one.
    struct Client: Sendable {
        var id: String
        var authentication: ClientAuthentication
    }

    func currentClient() throws(ZSMError) -> Client {
        if let registered = try clients?.load(issuer: configuration.issuerString, template: configuration.dcrTemplate) {
            return Client(id: registered.clientID, authentication: registered.authentication)
        }
        return Client(id: configuration.clientID, authentication: configuration.clientAuthentication)
    }

    private func withCurrentClient(_ request: (Client) async -> TokenResponse) async -> TokenResponse {
        do throws(ZSMError) {
            return await request(try currentClient())
        } catch {
            return .error(error)
        }
    }

    /// Runs `request` with the current client; when the server refuses that client and a DCR
    /// template is configured, registers a client from it (once per manager) and runs `request`
    /// once more.
    private func withClientFallback(_ request: (Client) async -> TokenResponse) async -> TokenResponse {
        let first = await withCurrentClient(request)
        guard case .errorResponse(let answer, _) = first,
            ["invalid_client", "unauthorized_client"].contains(answer.error),
            let template = configuration.dcrTemplate, let clients,
            registered.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return first }
        configuration.logger.info("the client was refused (\(answer.error)); registering one from the DCR template")
        do throws(ZSMError) {
            let registered = try await register(from: template)
            try clients.save(registered, issuer: configuration.issuerString, template: template)
            return await request(Client(id: registered.clientID, authentication: registered.authentication))
        } catch {
            return .error(error)
        }
    }

    /// RFC 7591 from a template (DESIGN.md §5): a `dcr` token by the template's own
    /// `client_credentials`, then the registration with `software_id` the template.
    private func register(from template: OAuthConfiguration.DCRTemplate) async throws(ZSMError)
        -> DynamicClients.Registered
    {
        let token = try await tokenRequest(
            ["grant_type": "client_credentials", "scope": "dcr"],
            client: Client(id: template.clientID, authentication: template.authentication)
        ).get()
        let metadata = try await metadata()
        guard let url = URL(string: metadata.registrationEndpoint) else {
            throw ZSMError(.invalidConfiguration, "the registration endpoint is not a URL")
        }
        let request = ClientRegistrationRequest(
            clientName: "UMFA SDK client", redirectURIs: [configuration.redirectURI], softwareID: template.clientID)
        let body: Data
        do {
            body = try JSONEncoder().encode(request)
        } catch {
            throw ZSMError(.invalidConfiguration, "the registration could not be encoded")
        }
        let answer = try await session.send(
            "POST", url, body: .json(body, names: ["software_id", "client_name", "redirect_uris"]),
            accessToken: token.tokenType == "DPoP" ? token.accessToken : nil,
            headers: token.tokenType == "DPoP" ? [:] : ["Authorization": "Bearer \(token.accessToken)"])
        guard answer.status == 201,
            let registered = try? JSONDecoder().decode(ClientRegistrationResponse.self, from: answer.data)
        else {
            throw ZSMError(.serverError, "dynamic registration was refused", httpStatus: answer.status)
        }
        let client = DynamicClients.Registered(
            clientID: registered.clientID, method: registered.tokenEndpointAuthMethod,
            clientSecret: registered.clientSecret)
        guard DynamicClients.Registered.methods.contains(client.method) else {
            throw ZSMError(
                .invalidConfiguration,
                "the DCR template's clients authenticate with \(client.method), which the SDK cannot use for them "
                    + "(it can: \(DynamicClients.Registered.methods.sorted().joined(separator: ", ")))")
        }
        configuration.logger.info("a client was registered from the DCR template")
        return client
    }

    private func attestationChallenge() async throws(ZSMError) -> String {
        guard let url = URL(string: configuration.issuerString + "/attestation-challenge") else {
            throw ZSMError(.invalidConfiguration, "the issuer is not a URL")
        }
        let answer = try await session.send("POST", url)
        guard answer.status == 201,
            let body = try? JSONDecoder().decode(AttestationChallengeResponse.self, from: answer.data)
        else { throw ZSMError(.serverError, "no attestation challenge", httpStatus: answer.status) }
        return body.challenge
    }

    /// One token-endpoint request with `client`'s authentication; the listener hears the answer.
    func tokenRequest(_ parameters: [String: String], client: Client, attesting: Bool = false) async -> TokenResponse {
        do throws(ZSMError) {
            let metadata = try await metadata()
            guard let url = URL(string: metadata.tokenEndpoint) else {
                throw ZSMError(.invalidConfiguration, "the token endpoint is not a URL")
            }
            var form = parameters
            var headers: [String: String] = [:]
            let authentication = attesting ? client.authentication : client.authentication.outsideFlowToken
            try await authentication.apply(
                clientID: client.id, tokenEndpoint: url, now: configuration.now(), form: &form, headers: &headers,
                challenge: attestationChallenge)
            let answer = try await session.send("POST", url, body: .form(form), headers: headers)
            configuration.tokenResponseListener?(
                OAuthConfiguration.TokenEndpointResponse(status: answer.status, headers: answer.headers))
            if answer.status == 200, let tokens = try? JSONDecoder().decode(OAuthTokenResponse.self, from: answer.data)
            {
                configuration.logger.info("the token endpoint issued tokens (\(parameters["grant_type"] ?? ""))")
                return .success(tokens)
            }
            if let error = try? JSONDecoder().decode(OAuthErrorAnswer.self, from: answer.data) {
                configuration.logger.info("the token endpoint refused: \(error.error)")
                return .errorResponse(error, status: answer.status)
            }
            return .error(
                ZSMError(.serverError, "the token endpoint's answer does not read", httpStatus: answer.status))
        } catch {
            return .error(error)
        }
    }
}
