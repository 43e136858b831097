import Foundation
import UMFAContract
import UMFAStorage

/// One application as an OAuth authorization server: its issuer URL (docs/contract.md §5:
/// `<public URL>/oidc/<application_id>`), its endpoints and its metadata.
struct OAuthIssuer: Sendable {
    let application: ApplicationRecord
    let issuer: String
    /// The client the request names and its record (`nil`: the application has no such client),
    /// read in the statement that read the application (``IssuerDirectory``).
    private let namedClient: (id: String, record: OAuthClientRecord?)?

    /// The scopes of OpenID Connect Core §5.4 and `offline_access`; clients may also be given
    /// scopes of their own (API scopes for `client_credentials`).
    static let standardScopes = ["openid", "profile", "email", "phone", "offline_access"]
    /// The grant types this version serves.
    static let grantTypes = GrantRegistry.grantTypes
    /// How clients authenticate (`none`: public clients, PKCE S256 required; the mutual-TLS
    /// methods of RFC 8705 §2).
    static let authenticationMethods = [
        "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "tls_client_auth",
        "self_signed_tls_client_auth", "none",
    ]
    /// The claims ID tokens and UserInfo may carry.
    static let claims = [
        "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "at_hash", "sid", "azp", "email",
        "email_verified", "name", "given_name", "family_name", "updated_at", "phone_number", "phone_number_verified",
    ]

    /// The issuer of `application` under `publicURL`, with the client the request named when it
    /// was read in the same statement.
    init(
        application: ApplicationRecord, publicURL: String, namedClient: (id: String, record: OAuthClientRecord?)? = nil
    ) {
        self.application = application
        self.namedClient = namedClient
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        issuer = base + "/oidc/" + application.id.uuidString.lowercased()
    }

    /// The application's client `clientID` (`nil`: it has none by that id): the one read with the
    /// application when the request named it, else read now. Ids match byte for byte, as in the
    /// store.
    func client(_ clientID: String, store: any OAuthClientStore) async throws -> OAuthClientRecord? {
        if let namedClient, namedClient.id.utf8.elementsEqual(clientID.utf8) { return namedClient.record }
        return try await store.oauthClient(applicationID: application.id, clientID: clientID)
    }

    var tokenEndpoint: String { issuer + "/token" }

    /// RFC 8414 metadata and OpenID Connect discovery: what this issuer offers now.
    var metadata: AuthorizationServerMetadata {
        var metadata = AuthorizationServerMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: tokenEndpoint,
            userinfoEndpoint: issuer + "/userinfo", endSessionEndpoint: issuer + "/logout", jwksURI: issuer + "/jwks",
            introspectionEndpoint: issuer + "/introspect", revocationEndpoint: issuer + "/revoke",
            scopesSupported: Self.standardScopes + [
                PasskeyManagementAccess.scope, PasskeyManagementAccess.accountScope,
            ],
            grantTypesSupported: Self.grantTypes,
            tokenEndpointAuthMethodsSupported: Self.authenticationMethods,
            idTokenSigningAlgValuesSupported: [application.tokenSigningAlgorithm.rawValue],
            claimsSupported: Self.claims, promptValuesSupported: AuthorizationRequest.promptValues)
        metadata.acrValuesSupported = AuthenticationLevel.allCases.map(\.rawValue)
        metadata.authorizationDetailsTypesSupported = application.authorizationDetailsTypes
        return metadata
    }
}
