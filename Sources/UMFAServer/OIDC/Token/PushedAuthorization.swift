import Foundation
import UMFAContract
import UMFAStorage

/// Pushed authorization requests (RFC 9126): the client posts the authorization request to the
/// token-style endpoint, authenticated, and sends the browser with only `client_id` and the
/// `request_uri` it got, which works once, for 60 seconds, on any instance.
struct PushedAuthorization: Sendable {
    let issuer: OAuthIssuer
    let authentication: ClientAuthenticationChain
    let grants: OAuthGrants
    /// Where the authorization request's client and redirect URI are read from.
    let store: any OAuthClientStore

    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    static let pushedRequestLifetime = 60

    /// `POST <issuer>/par` (RFC 9126 §2): the same checks as the authorization endpoint, answered
    /// as OAuth errors, then a `request_uri`.
    func push(_ pushed: TokenRequest) async throws -> PushedAuthorizationResponse {
        let form = pushed.form
        let client = try await authentication.registeredMethod(pushed)
        guard form["request_uri"] == nil else {
            throw OAuthError.invalidRequest("request_uri cannot be pushed (RFC 9126 §2.1)")
        }
        let request: AuthorizationRequest
        do {
            (_, request) = try await AuthorizationRequest.parse(
                form.with("client_id", client.clientID), issuer: issuer, store: store,
                requestObjects: RequestObjects(grants: grants, now: grants.now))
        } catch let failure as AuthorizationRequest.Failure {
            switch failure {
            case .page(_, let message, let code): throw OAuthError(code: code, message)
            case .redirect(let error, _, _): throw error
            }
        }
        let handle = try await grants.create(
            .pushedRequest, request, lifetime: TimeInterval(Self.pushedRequestLifetime),
            prefix: Self.requestURIPrefix)
        return PushedAuthorizationResponse(requestURI: handle, expiresIn: Self.pushedRequestLifetime)
    }
}
