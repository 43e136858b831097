import Foundation
import UMFAContract
import UMFAStorage

/// What a client that registers itself (RFC 7591) may be: the request's metadata applied to a
/// base record, the template's settings over it, and the limits an application sets on clients
/// it has never seen.
///
/// - A client registered from a template copies the template's grants, method, scopes, token
///   lifetimes and DPoP binding; it is first-party only when the template is and every redirect
///   URI it brings is one of the template's own (``isFirstParty(_:template:)``): the template's
///   credentials ship inside apps, so a registration with them proves nothing about who asks.
/// - A client registered without a template chooses its grants and method, but its scopes only
///   from the ones the initial access token lists, or else the application's `allowed_scopes`.
enum ClientRegistrationRules {
    /// `base` with the request's metadata applied, then the template's settings over it; the
    /// scopes of a client without template must be among `allowedScopes`.
    static func client(
        from body: ClientRegistrationRequest, template: OAuthClientRecord?, base: OAuthClientRecord,
        allowedScopes: [String]
    ) throws -> OAuthClientRecord {
        if body.jwksURI != nil {
            throw OAuthError(code: .invalidClientMetadata, "jwks_uri is not supported: send the keys in jwks")
        }
        if body.softwareStatement != nil {
            throw OAuthError(code: .invalidSoftwareStatement, "Software statements are not accepted here")
        }
        var request = OAuthClientRequest(
            clientName: body.clientName ?? template.map { "\($0.name) (registered)" } ?? "Registered client",
            redirectURIs: body.redirectURIs ?? template?.redirectURIs,
            postLogoutRedirectURIs: body.postLogoutRedirectURIs ?? template?.postLogoutRedirectURIs)
        request.jwks = body.jwks
        request.takeMutualTLS(from: body)
        if let template {
            request.grantTypes = template.grantTypes
            request.responseTypes = template.responseTypes
            request.tokenEndpointAuthMethod = template.authenticationMethod.rawValue
            request.scope = template.scopes.joined(separator: " ")
            request.accessTokenTTLSeconds = template.accessTokenTTLSeconds
            request.refreshTokenTTLSeconds = template.refreshTokenTTLSeconds
            request.dpopBoundAccessTokens = template.dpopBoundAccessTokens
        } else {
            request.grantTypes = body.grantTypes
            request.responseTypes =
                body.responseTypes ?? body.grantTypes.map { $0.contains("authorization_code") ? ["code"] : [] }
            request.tokenEndpointAuthMethod = body.tokenEndpointAuthMethod
            request.scope = body.scope ?? (allowedScopes.contains("openid") ? "openid" : "")
            request.dpopBoundAccessTokens = body.dpopBoundAccessTokens
        }
        var client: OAuthClientRecord
        do {
            client = try OAuthClientSettings.apply(request, to: base)
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw registrationError(error)
        }
        client.softwareID = template?.clientID
        if template == nil, let refused = client.scopes.first(where: { !allowedScopes.contains($0) }) {
            throw OAuthError(
                code: .invalidClientMetadata,
                "scope \(refused) is not one a client may register for here (allowed: \(allowedScopes.joined(separator: " ")))"
            )
        }
        client.firstParty = template.map { isFirstParty(client, template: $0) } ?? false
        return client
    }

    /// RFC 7591 §3.2.2: a refused redirect URI is `invalid_redirect_uri`, any other refused
    /// member `invalid_client_metadata`; decided by the error's reason, never its message.
    static func registrationError(_ error: ServiceError) -> OAuthError {
        OAuthError(code: error.reason == .redirectURI ? .invalidRedirectURI : .invalidClientMetadata, error.message)
    }

    /// Whether a client registered from `template` skips consent: only when the template still is
    /// a first-party `dcr_template` client and each of the client's redirect URIs (and
    /// post-logout redirect URIs) is one of the template's own, byte for byte.
    static func isFirstParty(_ client: OAuthClientRecord, template: OAuthClientRecord) -> Bool {
        template.dcrTemplate && template.firstParty && template.clientID == client.softwareID
            && Set(client.redirectURIs).isSubset(of: template.redirectURIs)
            && Set(client.postLogoutRedirectURIs).isSubset(of: template.postLogoutRedirectURIs)
    }
}
