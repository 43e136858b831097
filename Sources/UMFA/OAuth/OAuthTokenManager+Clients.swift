import Foundation
import UMFAContract

/// The client the manager speaks for: the configured one, or one it registered from the DCR
/// template (docs/contract.md §5) when the configured one was refused or could not attest itself.
extension OAuthTokenManager {
    /// The client in use: the dynamic one when registered, else the configured one.
    struct Client: Sendable {
        var id: String
        var authentication: ClientAuthentication
    }

    /// What one try at the flow token came to.
    enum FlowTokenAttempt: Sendable {
        /// The token endpoint's answer (or an error around it).
        case answered(TokenResponse)
        /// The app's attestation closure threw: this device cannot attest the app.
        case cannotAttest
    }

    /// The refusals that mean "this client may not": the configured client is unknown or its
    /// proof (an attestation included) was refused (RFC 6749 §5.2).
    static let clientRefusals: Set<String> = ["invalid_client", "unauthorized_client"]

    func currentClient() throws(ZSMError) -> Client {
        if let stored = try clients?.load(issuer: configuration.issuerString, template: configuration.dcrTemplate) {
            return Client(id: stored.clientID, authentication: stored.authentication)
        }
        if configuration.dcrTemplate != nil, let kept = memoryClient.withLock({ $0 }) {
            return Client(id: kept.clientID, authentication: kept.authentication)
        }
        return Client(id: configuration.clientId, authentication: configuration.clientAuthentication)
    }

    func withCurrentClient(_ request: (Client) async -> TokenResponse) async -> TokenResponse {
        do throws(ZSMError) {
            return await request(try currentClient())
        } catch {
            return .error(error)
        }
    }

    /// One try at the flow token with `client`; an attesting client first gets the issuer's
    /// challenge and the app's attestation for it (docs/contract.md §6).
    func flowTokenAttempt(_ client: Client) async -> FlowTokenAttempt {
        let form = ["grant_type": "client_credentials", "scope": Self.flowScope]
        guard case .attestation(let attest) = client.authentication else {
            return .answered(await tokenRequest(form, client: client))
        }
        let challenge: String
        do throws(ZSMError) {
            challenge = try await attestationChallenge()
        } catch {
            return .answered(.error(error))
        }
        let attestation: ClientAuthentication.ClientAttestation
        do {
            attestation = try await attest(challenge)
        } catch {
            configuration.logger.info("the app could not attest itself")
            return .cannotAttest
        }
        return .answered(await tokenRequest(form, client: client, attested: (challenge, attestation)))
    }

    /// Runs `attempt` with the current client. When the server refuses that client (its
    /// attestation included) or the app cannot attest itself, and a DCR template is configured,
    /// registers a client from it (once per manager) and runs `attempt` once more with it;
    /// without a template, an app that cannot attest itself is an error that says so.
    func withClientFallback(_ attempt: (Client) async -> FlowTokenAttempt) async -> TokenResponse {
        await withClientFallbackCause(attempt).0
    }

    /// ``withClientFallback(_:)``, and Curity's name for an attestation that failed for good:
    /// `attestationFailure` when the app could not attest itself, `attestationRefusedByServer`
    /// when the server refused its attestation, and no template took over.
    func withClientFallbackCause(_ attempt: (Client) async -> FlowTokenAttempt) async -> (TokenResponse, HaapiError?) {
        let client: Client
        do throws(ZSMError) {
            client = try currentClient()
        } catch {
            return (.error(error), nil)
        }
        let attesting: Bool
        if case .attestation = client.authentication { attesting = true } else { attesting = false }
        let first = await attempt(client)
        let trigger: String
        switch first {
        case .cannotAttest:
            trigger = "the app could not attest itself"
        case .answered(.errorToken(let refusal))
        where Self.clientRefusals.contains(refusal.error) || (attesting && refusal.error == "invalid_request"):
            trigger = "the server refused the client (\(refusal.error))"
        case .answered(let response):
            return (response, nil)
        }
        let cannotAttest = ZSMError(
            .invalidConfiguration,
            "this device cannot attest the app, and no DCR template is configured to register a client from",
            recovery: .giveUp)
        guard let template = configuration.dcrTemplate,
            registered.withLock({ done in
                defer { done = true }
                return !done
            })
        else {
            if case .answered(let response) = first {
                let refused =
                    attesting ? response.refusal.map { HaapiError.attestationRefusedByServer(cause: $0) } : nil
                return (response, refused)
            }
            return (.error(cannotAttest), .attestationFailure(cause: cannotAttest))
        }
        configuration.logger.info("\(trigger); registering a client from the DCR template")
        do throws(ZSMError) {
            let registered = try await register(from: template)
            if let clients {
                try clients.save(registered, issuer: configuration.issuerString, template: template)
            } else {
                memoryClient.withLock { $0 = registered }
            }
            switch await attempt(Client(id: registered.clientID, authentication: registered.authentication)) {
            case .answered(let response): return (response, nil)
            case .cannotAttest: return (.error(cannotAttest), .attestationFailure(cause: cannotAttest))
            }
        } catch {
            return (.error(error), nil)
        }
    }

    /// RFC 7591 from a template (docs/contract.md §5): a `dcr` token by the template's own
    /// `client_credentials`, then the registration with `software_id` the template.
    private func register(from template: OAuthConfiguration.DCRTemplate) async throws(ZSMError)
        -> DynamicClients.Registered
    {
        let token = try await tokenRequest(
            ["grant_type": "client_credentials", "scope": "dcr"],
            client: Client(id: template.clientId, authentication: template.authentication)
        ).get()
        let metadata = try await metadata()
        guard let url = URL(string: metadata.registrationEndpoint) else {
            throw ZSMError(.invalidConfiguration, "the registration endpoint is not a URL")
        }
        let request = ClientRegistrationRequest(
            clientName: "UMFA SDK client", redirectURIs: [configuration.redirectURI], softwareID: template.clientId)
        let body: Data
        do {
            body = try JSONEncoder().encode(request)
        } catch {
            throw ZSMError(.invalidConfiguration, "the registration could not be encoded")
        }
        // A bound `dcr` token goes as `DPoP` with a proof; a `Bearer` one as `Bearer`.
        let bound = token.tokenType == "DPoP" && session.key != nil
        let answer = try await session.send(
            "POST", url, body: .json(body, names: ["software_id", "client_name", "redirect_uris"]),
            accessToken: bound ? token.accessToken : nil,
            headers: bound ? [:] : ["Authorization": "Bearer \(token.accessToken)"])
        guard answer.status == 201,
            let registered = try? JSONDecoder().decode(ClientRegistrationResponse.self, from: answer.data)
        else {
            throw ZSMError(.serverError, "dynamic registration was refused", httpStatus: answer.status)
        }
        let client = DynamicClients.Registered(
            // RFC 7591 §2: `client_secret_basic` when the metadata does not say.
            clientID: registered.clientID, method: registered.tokenEndpointAuthMethod ?? "client_secret_basic",
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

    /// A challenge of the issuer for a client attestation (docs/contract.md §6).
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
}
