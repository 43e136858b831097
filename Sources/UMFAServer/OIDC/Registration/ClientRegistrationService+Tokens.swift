import Foundation
import UMFAStorage
import UMFAWebAuthn

extension ClientRegistrationService {
    // MARK: Tokens

    static let staleRegistrationToken = ProtectedResource.Refusal(
        error: OAuthError(code: .invalidToken, "The registration access token was replaced or the client removed"))

    static let badInitialAccessToken = ProtectedResource.Refusal(
        error: OAuthError(code: .invalidToken, "The initial access token is invalid, expired or used up"))

    /// Who registers: a live admin-issued initial access token (checked, not yet spent), or a
    /// live `dcr` access token of a client that is still a template. Nothing of the request is
    /// read before this, so a caller without a token learns nothing (not even whether a
    /// `software_id` names a template); a token that fails counts against the caller's address.
    func authority(_ presented: ProtectedResource.Presented) async throws -> Authority {
        let header = presented.authorization
        if let (scheme, token) = ProtectedResource.credentials(header), scheme == .bearer,
            token.hasPrefix(Self.initialAccessTokenPrefix)
        {
            guard
                let live = try await store.liveInitialAccessToken(
                    hash: Secrets.hash(token), applicationID: issuer.application.id, at: now())
            else {
                do {
                    try await abuse.refuseCredential(caller, .unauthenticated("initial access token"))
                } catch let error as ServiceError where error.code == .unauthenticated {
                    throw Self.badInitialAccessToken
                }
            }
            return .initialAccessToken(live)
        }
        let claims =
            try await registrationEndpoint
            .claims(of: presented) { $0.authTime == nil && $0.scope.split(separator: " ").contains("dcr") }
        guard
            let template = try await store.oauthClient(
                applicationID: issuer.application.id, clientID: claims.clientID),
            template.dcrTemplate
        else {
            throw ProtectedResource.Refusal(
                error: OAuthError(code: .invalidToken, "The access token's client is not a dcr_template client"))
        }
        return .template(template)
    }

    /// The client of the path, when the request's registration access token is its own; 401
    /// otherwise (RFC 7592 §2: also for an unknown client), counted against the address.
    func managedClient(_ clientID: String?, presented: ProtectedResource.Presented) async throws
        -> OAuthClientRecord
    {
        let refusal = ProtectedResource.Refusal(
            error: OAuthError(code: .invalidToken, "The registration access token is not valid for this client"))
        guard let (scheme, token) = ProtectedResource.credentials(presented.authorization),
            scheme == .bearer
        else { throw ProtectedResource.Refusal(error: nil) }
        guard let clientID,
            let client = try await store.oauthClient(applicationID: issuer.application.id, clientID: clientID),
            let stored = client.registrationTokenHash, constantTimeEqual(Secrets.hash(token), stored)
        else {
            do {
                try await abuse.refuseCredential(
                    caller, .unauthenticated("registration access token"))
            } catch let error as ServiceError where error.code == .unauthenticated {
                throw refusal
            }
        }
        return client
    }
}
