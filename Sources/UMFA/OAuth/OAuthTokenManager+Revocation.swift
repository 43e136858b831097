import Foundation

/// What a revocation came to, Curity's `TokenRevocationResponse`.
public enum TokenRevocationResponse: Sendable {
    /// The token is revoked (RFC 7009 §2.2: also when it was unknown or already revoked).
    case successfulRevocation
    /// The server refused (RFC 7009 §2.2.1).
    case errorRevocation(ErrorTokenResponse)
    /// The request did not get an answer it could use.
    case error(ZSMError)
}

/// What a revocation's completion handler gets, Curity's `OAuthRevocationCompletion`.
public typealias OAuthRevocationCompletion = @Sendable (TokenRevocationResponse) -> Void

/// Curity's revocation methods (RFC 7009) beside ``OAuthTokenManager/revoke(_:)``.
extension OAuthTokenManager {
    /// Revokes `refreshToken` and its whole family (RFC 7009 §2.1), Curity's
    /// `revokeRefreshToken(with:)`; sign-out.
    public func revokeRefreshToken(with refreshToken: String) async -> TokenRevocationResponse {
        await revocation(refreshToken)
    }

    /// Revokes `accessToken` (RFC 7009 §2.1), Curity's `revokeAccessToken(with:)`.
    public func revokeAccessToken(with accessToken: String) async -> TokenRevocationResponse {
        await revocation(accessToken)
    }

    /// ``revokeRefreshToken(with:)`` with a completion handler.
    public func revokeRefreshToken(with refreshToken: String, completion: @escaping OAuthRevocationCompletion) {
        Task { completion(await revokeRefreshToken(with: refreshToken)) }
    }

    /// ``revokeAccessToken(with:)`` with a completion handler.
    public func revokeAccessToken(with accessToken: String, completion: @escaping OAuthRevocationCompletion) {
        Task { completion(await revokeAccessToken(with: accessToken)) }
    }

    /// One revocation request (RFC 7009 §2.1) with the client's authentication.
    func revocation(_ token: String) async -> TokenRevocationResponse {
        do throws(ZSMError) {
            let metadata = try await metadata()
            guard let url = URL(string: metadata.revocationEndpoint), let audience = URL(string: metadata.tokenEndpoint)
            else { throw ZSMError(.invalidConfiguration, "the revocation endpoint is not a URL") }
            var form = ["token": token]
            var headers: [String: String] = [:]
            let client = try currentClient()
            try client.authentication.outsideFlowToken.apply(
                clientID: client.id, tokenEndpoint: audience, now: configuration.now(), form: &form, headers: &headers)
            let answer = try await session.send("POST", url, body: .form(form), headers: headers)
            guard answer.status == 200 else {
                let error = try? JSONDecoder().decode(OAuthErrorAnswer.self, from: answer.data)
                return .errorRevocation(
                    ErrorTokenResponse(
                        error: error?.error ?? "server_error", errorDescription: error?.errorDescription,
                        statusCode: answer.status, traceId: error?.traceId))
            }
            configuration.logger.info("a token was revoked")
            return .successfulRevocation
        } catch {
            return .error(error)
        }
    }
}
