import UMFAContract
import UMFAStorage

/// The token endpoint (RFC 6749 §3.2) as one pipeline without HTTP: the client authentication
/// chain, the sender constraint, then the grant's handler from the ``GrantRegistry``. Every
/// answer and refusal is counted by grant type and outcome in `/metrics`.
struct TokenPipeline: Sendable {
    let authentication: ClientAuthenticationChain
    let constraint: SenderConstraint
    let grants: GrantRegistry
    /// Counts answers and refusals by grant type and outcome.
    let metrics: ServerMetrics

    /// The tokens `request` earns, or the RFC 6749 §5.2 error.
    func token(_ request: TokenRequest) async throws -> OAuthTokenResponse {
        do {
            let answer = try await run(request)
            metrics.grant(request.form["grant_type"], outcome: "issued")
            return answer
        } catch let error as OAuthError {
            metrics.grant(request.form["grant_type"], outcome: error.code.rawValue)
            throw error
        }
    }

    private func run(_ request: TokenRequest) async throws -> OAuthTokenResponse {
        let grantType = try request.form.require("grant_type")
        // Step 1: the client (RFC 6749 §3.2.1).
        let authenticated = try await authentication.authenticate(request)
        // Step 2: what its tokens are bound to (RFC 9449 §5, RFC 8705 §3).
        let binding = try await constraint.bind(request, client: authenticated.client)
        // Step 3: the grant (RFC 6749 §4, §6).
        let handler = try grants.handler(for: grantType)
        return try await handler.grant(
            GrantInput(
                request: request, client: authenticated.client, attested: authenticated.attested, binding: binding))
    }
}
