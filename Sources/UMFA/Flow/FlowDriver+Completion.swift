import Foundation
import UMFAContract
import UMFAEncoding

/// The stringly `FlowStep` forms of ``FlowDriver``, deprecated for the typed ones
/// (``FlowDriver/start(prompt:loginHint:scopes:)``, ``FlowDriver/submitForm(_:parameters:)``,
/// ``FlowDriver/followLink(_:)``); completions run on an arbitrary thread.
extension FlowDriver {
    /// The completion of the deprecated `FlowStep` methods.
    public typealias StepCompletion = @Sendable (Result<FlowStep, FlowError>) -> Void

    /// Starts a flow; the first step as a `FlowStep`.
    @available(*, deprecated, message: "use start(prompt:loginHint:scopes:), a HaapiResult of typed steps")
    public func startFlowStep(prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil)
        async throws(FlowError) -> FlowStep
    {
        try await beginStep(prompt: prompt, loginHint: loginHint, scopes: scopes)
    }

    /// Submits `form` with `parameters`; the next step as a `FlowStep`.
    @available(*, deprecated, message: "use submitForm(_:parameters:), a HaapiResult of typed steps")
    public func submit(_ form: FlowForm, parameters: [String: JSONValue] = [:]) async throws(FlowError) -> FlowStep {
        try await sendForm(form, parameters: parameters)
    }

    /// Follows `link`; the next step as a `FlowStep`.
    @available(*, deprecated, message: "use followLink(_:), a HaapiResult of typed steps")
    public func follow(_ link: FlowLink) async throws(FlowError) -> FlowStep {
        try await followFlowLink(link)
    }

    /// Ends the flow from a `FlowStep`: the tokens and the verified ID token's claims.
    @available(
        *, deprecated, message: "use finish(_:) with an OAuthAuthorizationResponseStep, or fetchAccessToken(with:)"
    )
    public func finish(_ step: FlowStep) async throws(FlowError) -> (OAuthTokenResponse, [String: JSONValue]) {
        try await finishStep(step)
    }

    /// Starts a flow; the first step as a `FlowStep`.
    @available(*, deprecated, message: "use start(prompt:loginHint:scopes:completion:), a HaapiResult")
    public func startFlowStep(
        prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil,
        completion: @escaping StepCompletion
    ) {
        Task {
            completion(
                await Self.stepResult { () async throws(FlowError) in
                    try await self.beginStep(prompt: prompt, loginHint: loginHint, scopes: scopes)
                })
        }
    }

    /// Submits `form` with `parameters`; the next step as a `FlowStep`.
    @available(*, deprecated, message: "use submitForm(_:parameters:completion:), a HaapiResult")
    public func submit(
        _ form: FlowForm, parameters: [String: JSONValue] = [:], completion: @escaping StepCompletion
    ) {
        Task {
            completion(
                await Self.stepResult { () async throws(FlowError) in
                    try await self.sendForm(form, parameters: parameters)
                })
        }
    }

    /// Follows `link`; the next step as a `FlowStep`.
    @available(*, deprecated, message: "use followLink(_:completion:), a HaapiResult")
    public func follow(_ link: FlowLink, completion: @escaping StepCompletion) {
        Task { completion(await Self.stepResult { () async throws(FlowError) in try await self.followFlowLink(link) }) }
    }

    /// Ends the flow: the tokens and the verified ID token's claims.
    @available(
        *, deprecated, message: "use finish(_:) with an OAuthAuthorizationResponseStep, or fetchAccessToken(with:)"
    )
    public func finish(
        _ step: FlowStep,
        completion: @escaping @Sendable (Result<(OAuthTokenResponse, [String: JSONValue]), FlowError>) -> Void
    ) {
        Task { completion(await Self.stepResult { () async throws(FlowError) in try await self.finishStep(step) }) }
    }

    private static func stepResult<Value>(_ body: () async throws(FlowError) -> Value) async -> Result<Value, FlowError>
    {
        do throws(FlowError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
