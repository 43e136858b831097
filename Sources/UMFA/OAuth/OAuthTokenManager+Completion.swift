import Foundation

/// What a token request's completion handler gets, Curity's `OAuthCompletion`.
public typealias OAuthCompletion = @Sendable (TokenResponse) -> Void

/// The completion-handler forms of the token manager, next to the `async` ones; completions run
/// on an arbitrary thread.
extension OAuthTokenManager {
    /// ``fetchAccessToken(with:dpop:)`` with a completion handler.
    public func fetchAccessToken(
        with authorizationCode: String, dpop: Dpop? = nil, completion: @escaping OAuthCompletion
    ) {
        Task { completion(await fetchAccessToken(with: authorizationCode, dpop: dpop)) }
    }

    /// ``fetchAccessToken(redirectURL:dpop:)`` with a completion handler.
    public func fetchAccessToken(redirectURL: URL, dpop: Dpop? = nil, completion: @escaping OAuthCompletion) {
        Task { completion(await fetchAccessToken(redirectURL: redirectURL, dpop: dpop)) }
    }

    /// ``refreshAccessToken(with:)`` with a completion handler.
    public func refreshAccessToken(with refreshToken: String, completion: @escaping OAuthCompletion) {
        Task { completion(await refreshAccessToken(with: refreshToken)) }
    }

    /// ``flowToken()`` with a completion handler.
    public func flowToken(completion: @escaping OAuthCompletion) {
        Task { completion(await flowToken()) }
    }

    /// ``revoke(_:)`` with a completion handler: `nil` when the token was revoked.
    public func revoke(_ token: String, completion: @escaping @Sendable (ZSMError?) -> Void) {
        Task {
            do throws(ZSMError) {
                try await revoke(token)
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}
