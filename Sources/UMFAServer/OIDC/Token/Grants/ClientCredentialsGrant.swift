import UMFAContract
import UMFAStorage

/// `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client gets an access token
/// for itself, for the scopes it asks for out of those it was given; a `dcr_template` client
/// gets one with scope `dcr` alone when it asks for exactly that; a flow client gets the API
/// flow's token (docs/contract.md §6).
struct ClientCredentialsGrant: GrantHandler {
    static let grantType = "client_credentials"
    let accessTokens: AccessTokens
    /// The application, whose resource indicators an audience must be one of (RFC 8707).
    let application: ApplicationRecord

    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse {
        let client = input.client
        let asked = input.form["scope"]
        let scopes: [String]
        if asked == ClientAttestationCheck.apiFlowScope, client.scopes.contains(ClientAttestationCheck.apiFlowScope) {
            // docs/contract.md §6: the flow token, for public clients too; attested when required.
            if client.attestationRequired, !input.attested {
                throw OAuthError(
                    code: .invalidClient, "This client must present a client attestation for the flow token")
            }
            scopes = [ClientAttestationCheck.apiFlowScope]
        } else if client.dcrTemplate, asked == ClientRegistrationService.scope {
            // docs/contract.md §5: a template may always get a token to register clients with, and
            // that token is good for nothing else.
            scopes = [ClientRegistrationService.scope]
        } else {
            try input.requireRegistered(for: Self.grantType)
            scopes = try GrantScopes.granted(asked, allowed: client.scopes)
        }
        let (token, _) = try await accessTokens.issue(
            to: client, subject: client.clientID, scopes: scopes,
            audience: try GrantScopes.audience(input.form["resource"], application: application),
            jkt: input.binding.jkt, x5t: input.binding.x5t)
        return OAuthTokenResponse(
            accessToken: token, tokenType: input.binding.tokenType, expiresIn: client.accessTokenTTLSeconds,
            scope: scopes.joined(separator: " "))
    }
}
