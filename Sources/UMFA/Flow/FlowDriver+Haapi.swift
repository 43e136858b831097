import Foundation
import UMFAContract
import UMFAEncoding

/// Curity's `HaapiManager`: the flow driver under the name Curity's documentation uses.
public typealias HaapiManager = FlowDriver

/// The flow in Curity's shape: `start`, `submitForm`, `followLink`, each a ``HaapiResult``.
extension FlowDriver {
    /// Starts a flow: a new flow token and authorization request; the first step (an
    /// ``InteractiveFormStep`` with UMFA's server).
    /// - Parameters:
    ///   - prompt: `create` to offer account creation alone, `login`, …
    ///   - loginHint: an email address or user id.
    ///   - scopes: the scopes to ask for, when not the configuration's.
    public func start(prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil) async -> HaapiResult {
        guard tokens.session.key != nil else { return .error(HaapiError(FlowDriver.unboundError)) }
        let (token, attestation) = await tokens.flowTokenWithCause()
        if let attestation { return .error(attestation) }
        if let refusal = token.refusal { return .error(HaapiError(refusal)) }
        return await Self.result { () async throws(FlowError) in
            try await self.beginStep(prompt: prompt, loginHint: loginHint, scopes: scopes, token: token)
        }
    }

    /// Submits `form` with `parameters` (its hidden fields go with their values; a
    /// `credential` parameter is the WebAuthn response JSON); the next step.
    public func submitForm(_ form: FormActionModel, parameters: [String: JSONValue] = [:]) async -> HaapiResult {
        await Self.result { () async throws(FlowError) in try await self.sendForm(form.flowForm, parameters: parameters)
        }
    }

    /// Follows `link` (`restart`); the next step.
    public func followLink(_ link: Link) async -> HaapiResult {
        await Self.result { () async throws(FlowError) in try await self.followFlowLink(link.flowLink) }
    }

    /// Ends the flow with this driver's own manager: the code exchanged (its `state` and `iss`
    /// were checked when the step came); the tokens and the verified ID token's claims.
    public func finish(_ step: OAuthAuthorizationResponseStep) async throws(FlowError) -> (
        OAuthTokenResponse, [String: JSONValue]
    ) {
        try await finishStep(step.flowStep)
    }

    /// The flow's DPoP key, Curity's `HaapiManager.dpop`: give it to a token manager built
    /// elsewhere (``OAuthTokenManager/fetchAccessToken(with:dpop:)``); `nil` when unbound.
    public var dpop: Dpop? { tokens.dpop }

    /// ``start(prompt:loginHint:scopes:)`` with a completion handler.
    public func start(
        prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil,
        completion: @escaping HaapiCompletionHandler
    ) {
        Task { completion(await start(prompt: prompt, loginHint: loginHint, scopes: scopes)) }
    }

    /// ``submitForm(_:parameters:)`` with a completion handler.
    public func submitForm(
        _ form: FormActionModel, parameters: [String: JSONValue] = [:], completion: @escaping HaapiCompletionHandler
    ) {
        Task { completion(await submitForm(form, parameters: parameters)) }
    }

    /// ``followLink(_:)`` with a completion handler.
    public func followLink(_ link: Link, completion: @escaping HaapiCompletionHandler) {
        Task { completion(await followLink(link)) }
    }

    /// A step typed; a problem typed; any other failure a ``HaapiError``.
    private static func result(_ body: () async throws(FlowError) -> FlowStep) async -> HaapiResult {
        do throws(FlowError) {
            return .representation(typedStep(try await body()))
        } catch {
            if let problem = error.problem { return .problem(typedProblem(problem, status: error.httpStatus ?? 400)) }
            return .error(HaapiError(error))
        }
    }
}
