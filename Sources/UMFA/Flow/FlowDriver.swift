import Foundation
import Synchronization
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnModel

/// Drives the API-driven flow (docs/contract.md §6), Curity's `HaapiManager`: starts it with a
/// DPoP-bound flow token, submits forms, follows links; each answer is a ``HaapiResult``, whose
/// steps are typed as Curity's documentation names them (``InteractiveFormStep``,
/// ``WebAuthnRegistrationClientOperationStep``, ``PollingStep``, ``UserConsentStep``,
/// ``OAuthAuthorizationResponseStep``, …) and whose problems are ``ProblemRepresentation``s.
///
/// ```swift
/// let driver = FlowDriver(tokens: manager)
/// if case .representation(let step as InteractiveFormStep) = await driver.start(),
///     let signIn = step.formAction(kind: "passkey-sign-in")
/// {
///     let next = await driver.submitForm(signIn.model, parameters: ["username": .string(email)])
/// }
/// ```
///
/// The stringly `FlowStep` methods (``startFlowStep(prompt:loginHint:scopes:)``,
/// ``submit(_:parameters:)``, ``follow(_:)``, `finish(_:)` of a `FlowStep`) remain, deprecated.
public final class FlowDriver: Sendable {
    /// The token manager whose client, DPoP key and issuer the flow uses.
    public let tokens: OAuthTokenManager
    let state = Mutex<State>(State())

    /// The flow in progress: its token and the authorization request's secrets.
    struct State {
        var flowToken: String?
        var secrets: AuthorizationSecrets?
    }

    /// A driver for `tokens`' client.
    public init(tokens: OAuthTokenManager) { self.tokens = tokens }

    private var configuration: OAuthConfiguration { tokens.configuration }

    /// The flow of an unbound manager.
    static let unboundError = ZSMError(
        .invalidConfiguration,
        "the API-driven flow binds its tokens to the flow's DPoP key: use a BoundedTokenConfiguration "
            + "(an UnboundedTokenConfiguration suits authorizationRequestURL and a browser)",
        recovery: .giveUp)

    /// Starts a flow: a new flow token, and an authorization request (PKCE, `state`, `nonce`)
    /// the token manager keeps for the code; the first step.
    /// - Parameter token: the flow token's answer, when the caller fetched it already.
    func beginStep(prompt: String?, loginHint: String?, scopes: [String]?, token answer: TokenResponse? = nil)
        async throws(FlowError) -> FlowStep
    {
        // RFC 9449 §10: the server binds the flow's code to the flow token's key, so the flow
        // needs one; unbound tokens come from a browser's authorization request.
        guard tokens.session.key != nil else { throw FlowError(Self.unboundError) }
        let token: OAuthTokenResponse
        let url: URL
        let secrets: AuthorizationSecrets
        do throws(ZSMError) {
            if let answer { token = try answer.get() } else { token = try await tokens.flowToken().get() }
            (url, secrets) = try await tokens.authorizationRequest(prompt: prompt, loginHint: loginHint, scopes: scopes)
        } catch {
            throw FlowError(error)
        }
        state.withLock { $0 = State(flowToken: token.accessToken, secrets: secrets) }
        configuration.logger.info("an API-driven flow starts")
        return try await exchange("GET", url, body: .none)
    }

    /// Submits `form` with `parameters` (hidden fields are sent with their values). A
    /// `credential` parameter is the WebAuthn response JSON.
    func sendForm(_ form: FlowForm, parameters: [String: JSONValue]) async throws(FlowError) -> FlowStep {
        guard let url = URL(string: form.href) else {
            throw FlowError(ZSMError(.serverError, "a form of the flow has no valid href"))
        }
        var values: [String: JSONValue] = [:]
        for field in form.fields {
            if let value = field.value { values[field.name] = .string(value) }
        }
        for (name, value) in parameters { values[name] = value }
        if form.method.uppercased() == "GET" { return try await exchange("GET", url, body: .none) }
        let body: Data
        do {
            body = try JSONEncoder().encode(values)
        } catch {
            throw FlowError(ZSMError(.invalidConfiguration, "the form could not be encoded"))
        }
        return try await exchange(form.method.uppercased(), url, body: .json(body, names: Array(values.keys)))
    }

    /// Follows `link` (a `restart`, say).
    func followFlowLink(_ link: FlowLink) async throws(FlowError) -> FlowStep {
        guard let url = URL(string: link.href) else {
            throw FlowError(ZSMError(.serverError, "a link of the flow has no valid href"))
        }
        return try await exchange("GET", url, body: .none)
    }

    /// The end of the flow: the authorization response's `state` and `iss` checked (RFC 9207),
    /// its code exchanged with the PKCE verifier; the tokens and the verified ID token's claims.
    func finishStep(_ step: FlowStep) async throws(FlowError) -> (OAuthTokenResponse, [String: JSONValue]) {
        guard step.type == .authorizationResponse, let code = step.properties["code"]?.stringValue else {
            throw FlowError(ZSMError(.serverError, "the flow has not ended with an authorization response"))
        }
        guard let secrets = state.withLock({ $0.secrets }) else {
            throw FlowError(ZSMError(.invalidConfiguration, "no flow was started"))
        }
        guard step.properties["state"]?.stringValue == secrets.state,
            step.properties["iss"]?.stringValue.map({ $0.utf8.elementsEqual(configuration.issuerString.utf8) }) == true
        else {
            throw FlowError(
                ZSMError(.verificationFailed, "the authorization response is not this flow's", recovery: .startOver))
        }
        // The manager's pending request of this state: its verifier, and its nonce for the ID token.
        let (response, claims) = await tokens.redeem(code, secrets)
        do throws(ZSMError) {
            let issued = try response.get()
            state.withLock { $0 = State() }
            return (issued, claims)
        } catch {
            throw FlowError(error)
        }
    }

    /// One request of the flow with the flow token and a proof; a step, or the problem thrown.
    private func exchange(_ method: String, _ url: URL, body: OAuthSession.Body) async throws(FlowError) -> FlowStep {
        // The flow token and its proofs go to the issuer only, whatever a step names.
        guard let issuer = URL(string: configuration.issuerString), url.scheme == issuer.scheme,
            url.host == issuer.host, url.port == issuer.port
        else {
            throw FlowError(ZSMError(.serverError, "a step of the flow points away from the issuer", recovery: .giveUp))
        }
        guard let token = state.withLock({ $0.flowToken }) else {
            throw FlowError(ZSMError(.invalidConfiguration, "start the flow first", recovery: .startOver))
        }
        let answer: OAuthSession.Answer
        do {
            answer = try await tokens.session.send(
                method, url, body: body, accept: FlowStep.mediaType, accessToken: token)
        } catch {
            throw FlowError(error)
        }
        if answer.status == 200, let step = try? JSONDecoder().decode(FlowStep.self, from: answer.data) {
            configuration.logger.debug("flow step \(step.type.rawValue) \(step.metadata?.viewName ?? "")")
            if step.type == .authorizationResponse { try checkResponse(step) }
            return step
        }
        if let problem = try? JSONDecoder().decode(FlowProblem.self, from: answer.data) {
            configuration.logger.info("flow problem \(problem.type.rawValue)")
            throw FlowError(problem: problem, status: answer.status)
        }
        if answer.status == 401 {
            throw FlowError(
                unauthorized: "the flow token was refused (\(answer.headers["www-authenticate"] ?? "401"))",
                status: answer.status)
        }
        throw FlowError(ZSMError(.serverError, "the flow's answer does not read", httpStatus: answer.status))
    }

    /// An authorization response must carry the flow's `state` (RFC 6749 §10.12) and the issuer
    /// (RFC 9207 §2.4); then its code is the flow request's, for any manager of its storage.
    private func checkResponse(_ step: FlowStep) throws(FlowError) {
        guard let secrets = state.withLock({ $0.secrets }), let code = step.properties["code"]?.stringValue,
            step.properties["state"]?.stringValue == secrets.state,
            step.properties["iss"]?.stringValue.map({ $0.utf8.elementsEqual(configuration.issuerString.utf8) }) == true,
            tokens.pending.checked(state: secrets.state, code: code)
        else {
            throw FlowError(
                ZSMError(.verificationFailed, "the authorization response is not this flow's", recovery: .startOver))
        }
    }
}
