import Foundation
import UMFAContract
import UMFAStorage

/// What a client that registers itself (RFC 7591) may be: the request's metadata applied to a
/// base record — for a client registered from a template, a base that holds the template's
/// protections — and the limits an application sets on clients it has never seen.
///
/// - A client registered from a template inherits every protection of the template and may
///   only tighten it (``ClientMetadataInheritance``): its grants, authentication method, scopes,
///   token lifetimes, DPoP and certificate binding, PAR. It is first-party only when the
///   template is and every redirect URI it brings is one of the template's own
///   (``isFirstParty(_:template:)``): the template's credentials ship inside apps, so a
///   registration with them proves nothing about who asks.
/// - A client registered without a template chooses its grants and method, but its scopes only
///   from the ones the initial access token lists, or else the application's `allowed_scopes`.
/// - No self-registered client holds a ``firstPartyOnlyScopes`` scope: asking for one is refused,
///   and a template's is not inherited.
enum ClientRegistrationRules {
    /// Scopes only an admin-made client is granted (docs/oidc-provider.md): `umfa:passkeys` lets
    /// a token list, rename and delete the user's passkeys, `umfa:account` delete the account.
    static let firstPartyOnlyScopes: Set = [PasskeyManagementAccess.scope, PasskeyManagementAccess.accountScope]

    /// Whether `scope` is one no self-registered client is granted.
    static func isFirstPartyOnly(_ scope: String) -> Bool { firstPartyOnlyScopes.contains(scope) }

    /// `base` with the request's metadata applied — over the template's protections when there
    /// is a template, each of which the request may only tighten; the scopes of a client
    /// without template must be among `allowedScopes`.
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
        // The members a registering client may set (``ClientMetadata/Member/origin``).
        var request = body.metadata.accepted(from: .registration)
        request.clientName = body.clientName ?? template.map { "\($0.name) (registered)" } ?? "Registered client"
        request.redirectURIs = body.redirectURIs ?? template?.redirectURIs
        request.postLogoutRedirectURIs = body.postLogoutRedirectURIs ?? template?.postLogoutRedirectURIs
        // `software_id` names the template; the client records the template it was made from.
        request.softwareID = nil
        var start = base
        if let template {
            // A member left out is the template's; response_types follow the grant types.
            start = ClientMetadataInheritance.inherit(template, into: base)
            let grants = body.grantTypes ?? start.grantTypes
            request.responseTypes = grants.contains("authorization_code") ? ["code"] : []
            request.scope = body.scope
        } else {
            request.responseTypes =
                body.responseTypes ?? body.grantTypes.map { $0.contains("authorization_code") ? ["code"] : [] }
            request.scope = body.scope ?? (allowedScopes.contains("openid") ? "openid" : "")
        }
        var client: OAuthClientRecord
        do {
            client = try OAuthClientSettings.apply(request, to: start, from: .registration)
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw registrationError(error)
        }
        client.softwareID = template?.clientID
        // CIBA asks a person's phone to approve whatever the client names: only an admin-made
        // client, or one made from a template that has the grant, may.
        if template == nil, client.grantTypes.contains(CIBAGrant.grantType) {
            throw OAuthError(
                code: .invalidClientMetadata,
                "\(CIBAGrant.grantType) is for clients an administrator made (or a template that has it)")
        }
        if let template {
            try ClientMetadataInheritance.check(client, against: template)
        } else if let refused = client.scopes.first(where: { !allowedScopes.contains($0) }) {
            throw OAuthError(
                code: .invalidClientMetadata,
                "scope \(refused) is not one a client may register for here (allowed: \(allowedScopes.joined(separator: " ")))"
            )
        }
        if let refused = client.scopes.first(where: isFirstPartyOnly) {
            throw OAuthError(
                code: .invalidClientMetadata,
                "scope \(refused) is only for the application's own clients, never for one that registers itself")
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

extension OAuthClientRecord {
    /// The scopes the client may be granted: its own, less the first-party-only ones when it
    /// registered itself (its stored scopes may still list one: an older registration, or an
    /// admin's edit).
    var grantableScopes: [String] {
        isSelfRegistered ? scopes.filter { !ClientRegistrationRules.isFirstPartyOnly($0) } : scopes
    }
}
