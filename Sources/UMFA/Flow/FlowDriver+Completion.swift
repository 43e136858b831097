import Foundation
import UMFAContract
import UMFAEncoding

/// The completion-handler forms of ``FlowDriver``, next to the `async` ones, as the rest of the
/// SDK has them. Completions run on an arbitrary thread.
extension FlowDriver {
    /// The completion of ``start(prompt:loginHint:scopes:completion:)``,
    /// ``submit(_:parameters:completion:)`` and ``follow(_:completion:)``: the next step, or why
    /// there is none.
    public typealias StepCompletion = @Sendable (Result<FlowStep, FlowError>) -> Void

    /// Starts a flow; the first step.
    public func start(
        prompt: String? = nil, loginHint: String? = nil, scopes: [String]? = nil,
        completion: @escaping StepCompletion
    ) {
        Task {
            completion(
                await Self.result { () async throws(FlowError) in
                    try await self.start(prompt: prompt, loginHint: loginHint, scopes: scopes)
                })
        }
    }

    /// Submits `form` with `parameters`; the next step.
    public func submit(
        _ form: FlowForm, parameters: [String: JSONValue] = [:], completion: @escaping StepCompletion
    ) {
        Task {
            completion(
                await Self.result { () async throws(FlowError) in
                    try await self.submit(form, parameters: parameters)
                })
        }
    }

    /// Follows `link`; the next step.
    public func follow(_ link: FlowLink, completion: @escaping StepCompletion) {
        Task { completion(await Self.result { () async throws(FlowError) in try await self.follow(link) }) }
    }

    /// Ends the flow: the tokens and the verified ID token's claims.
    public func finish(
        _ step: FlowStep,
        completion: @escaping @Sendable (Result<(OAuthTokenResponse, [String: JSONValue]), FlowError>) -> Void
    ) {
        Task { completion(await Self.result { () async throws(FlowError) in try await self.finish(step) }) }
    }

    private static func result<Value>(_ body: () async throws(FlowError) -> Value) async -> Result<Value, FlowError> {
        do throws(FlowError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
