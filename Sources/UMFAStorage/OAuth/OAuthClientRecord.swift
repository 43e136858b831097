import Foundation
import UMFAContract
import UMFAEncoding

/// How an OAuth client proves itself at the token endpoint (RFC 7591 §2,
/// ``ClientMetadata/tokenEndpointAuthMethod``).
package enum ClientAuthenticationMethod: String, Sendable, Codable, CaseIterable {
    /// A public client (a native or browser app): no secret; PKCE S256 is required.
    case none
    /// `Authorization: Basic` with the client id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body (RFC 6749 §2.3.1).
    case clientSecretPost = "client_secret_post"
    /// A JWT signed with a key of the client's registered `jwks` (RFC 7523, OpenID Connect Core §9).
    case privateKeyJWT = "private_key_jwt"
    /// A JWT with an HMAC (HS256) keyed by the client's secret (OpenID Connect Core §9).
    case clientSecretJWT = "client_secret_jwt"
    /// Mutual TLS with a certificate a trusted CA issued, matched by subject DN or one SAN
    /// (RFC 8705 §2.1).
    case tlsClientAuth = "tls_client_auth"
    /// Mutual TLS with a self-signed certificate the client registered in `jwks` (`x5c`,
    /// RFC 8705 §2.2).
    case selfSignedTLSClientAuth = "self_signed_tls_client_auth"

    /// Whether the client can authenticate (holds a secret or a private key).
    package var isConfidential: Bool { self != .none }
    /// Whether the client authenticates with a secret UMFA issues (shown once, stored hashed).
    package var usesSecret: Bool { self == .clientSecretBasic || self == .clientSecretPost || self == .clientSecretJWT }
    /// Whether the client authenticates with its TLS client certificate (RFC 8705 §2).
    package var usesCertificate: Bool { self == .tlsClientAuth || self == .selfSignedTLSClientAuth }
}

/// An OAuth 2.0 / OpenID Connect client of one application (docs/contract.md §5): its identity
/// and secrets, held in columns, and its settings, one ``ClientMetadata`` document.
///
/// The typed properties below read and write ``settings``; they name no member of their own,
/// so a new setting is one member of ``ClientMetadata`` (and a rule where the server checks it).
package struct OAuthClientRecord: Sendable, Equatable {
    /// The client id, unique over all applications.
    package var clientID: String
    /// The application (issuer) the client belongs to.
    package var applicationID: UUID
    /// When it was registered.
    package var createdAt: Date
    /// SHA-256 of the client secret; `nil` for a public client.
    package var secretHash: [UInt8]?
    /// The secret sealed with the master key (`client_secret_jwt`: HMAC needs the secret itself).
    package var sealedSecret: [UInt8]?
    /// SHA-256 of the registration access token (RFC 7592) of a dynamically registered client.
    package var registrationTokenHash: [UInt8]?
    /// The client's settings, every member resolved (the server fills the defaults at creation).
    package var settings: ClientMetadata

    /// The settings a new client starts from (docs/contract.md §5).
    package static let defaultSettings = ClientMetadata(
        clientName: "", redirectURIs: [], grantTypes: ["authorization_code"], responseTypes: ["code"],
        tokenEndpointAuthMethod: ClientAuthenticationMethod.clientSecretBasic.rawValue, scope: "openid",
        postLogoutRedirectURIs: [], firstParty: false, accessTokenTTLSeconds: 600, refreshTokenTTLSeconds: 2_592_000,
        requirePushedAuthorizationRequests: false, dpopBoundAccessTokens: false, dcrTemplate: false,
        attestationRequired: false
    ).withBoundTokensOff()

    /// Creates a record.
    package init(
        clientID: String, applicationID: UUID, createdAt: Date, settings: ClientMetadata = defaultSettings,
        secretHash: [UInt8]? = nil, sealedSecret: [UInt8]? = nil, registrationTokenHash: [UInt8]? = nil
    ) {
        self.clientID = clientID
        self.applicationID = applicationID
        self.createdAt = createdAt
        self.settings = settings
        self.secretHash = secretHash
        self.sealedSecret = sealedSecret
        self.registrationTokenHash = registrationTokenHash
    }

    /// Whether the client registered itself at the registration endpoint (RFC 7591), with or
    /// without a template, rather than being made by an admin: exactly the clients that hold a
    /// registration access token (RFC 7592), which only registration gives and nothing removes.
    /// Such a client is third-party whatever it says about itself (docs/oidc-provider.md,
    /// "Dynamic client registration"): its name, redirect URIs and keys came from whoever held
    /// an initial access token or a template's public credentials.
    package var isSelfRegistered: Bool { registrationTokenHash != nil }

    /// A human name (`client_name`).
    package var name: String {
        get { settings.clientName ?? "" }
        set { settings.clientName = newValue }
    }
    /// Redirect URIs, matched exactly.
    package var redirectURIs: [String] {
        get { settings.redirectURIs ?? [] }
        set { settings.redirectURIs = newValue }
    }
    /// Grant types the client may use.
    package var grantTypes: [String] {
        get { settings.grantTypes ?? [] }
        set { settings.grantTypes = newValue }
    }
    /// Response types the client may use.
    package var responseTypes: [String] {
        get { settings.responseTypes ?? [] }
        set { settings.responseTypes = newValue }
    }
    /// How the client authenticates at the token endpoint.
    package var authenticationMethod: ClientAuthenticationMethod {
        get {
            settings.tokenEndpointAuthMethod.flatMap(ClientAuthenticationMethod.init(rawValue:)) ?? .clientSecretBasic
        }
        set { settings.tokenEndpointAuthMethod = newValue.rawValue }
    }
    /// The scopes the client may ask for.
    package var scopes: [String] {
        get { (settings.scope ?? "").split(separator: " ").map(String.init) }
        set { settings.scope = newValue.joined(separator: " ") }
    }
    /// Where RP-initiated logout may send the browser back to.
    package var postLogoutRedirectURIs: [String] {
        get { settings.postLogoutRedirectURIs ?? [] }
        set { settings.postLogoutRedirectURIs = newValue }
    }
    /// A first-party client skips the consent screen.
    package var firstParty: Bool {
        get { settings.firstParty ?? false }
        set { settings.firstParty = newValue }
    }
    /// Access tokens live this long, in seconds.
    package var accessTokenTTLSeconds: Int {
        get { settings.accessTokenTTLSeconds ?? Self.defaultSettings.accessTokenTTLSeconds ?? 600 }
        set { settings.accessTokenTTLSeconds = newValue }
    }
    /// Refresh tokens live this long, in seconds.
    package var refreshTokenTTLSeconds: Int {
        get { settings.refreshTokenTTLSeconds ?? Self.defaultSettings.refreshTokenTTLSeconds ?? 2_592_000 }
        set { settings.refreshTokenTTLSeconds = newValue }
    }
    /// Whether the client may start authorization requests only through PAR (RFC 9126 §6).
    package var requirePushedAuthorizationRequests: Bool {
        get { settings.requirePushedAuthorizationRequests ?? false }
        set { settings.requirePushedAuthorizationRequests = newValue }
    }
    /// Whether every access token of the client must be DPoP-bound (RFC 9449 §5.2).
    package var dpopBoundAccessTokens: Bool {
        get { settings.dpopBoundAccessTokens ?? false }
        set { settings.dpopBoundAccessTokens = newValue }
    }
    /// The client's public keys, a JWK Set as JSON text (`private_key_jwt`).
    package var jwks: String? {
        get { settings.jwks.map { StoredValue.json(encoding: $0) } }
        set { settings.jwks = newValue.flatMap { try? StoredValue.decoded(JSONValue.self, from: $0) } }
    }
    /// Whether the client is a template for dynamic registration: it may get scope `dcr` by
    /// `client_credentials`, and the clients registered with that token copy its settings.
    package var dcrTemplate: Bool {
        get { settings.dcrTemplate ?? false }
        set { settings.dcrTemplate = newValue }
    }
    /// The template a dynamically registered client was made from (RFC 7591 `software_id`).
    package var softwareID: String? {
        get { settings.softwareID }
        set { settings.softwareID = newValue }
    }
    /// Whether the (public) client must present a client attestation for an API-flow token.
    package var attestationRequired: Bool {
        get { settings.attestationRequired ?? false }
        set { settings.attestationRequired = newValue }
    }
    /// The certificate subject a `tls_client_auth` client is recognised by (RFC 8705 §2.1.2).
    package var tlsClientAuthSubject: TLSClientAuthSubject? {
        get { settings.certificateSubject.flatMap { TLSClientAuthSubject(member: $0.member, value: $0.value) } }
        set {
            for member in ClientMetadata.Member.certificateSubject { settings[certificateSubject: member] = nil }
            if let newValue { settings[certificateSubject: newValue.member] = newValue.value }
        }
    }
    /// Whether the client's access tokens are bound to its TLS client certificate
    /// (``ClientMetadata/tlsClientCertificateBoundAccessTokens``, RFC 8705 §3.4).
    /// Whether the client's authorization requests must be signed request objects (RFC 9101 §10.5).
    package var requireSignedRequestObject: Bool {
        get { settings.requireSignedRequestObject ?? false }
        set { settings.requireSignedRequestObject = newValue }
    }

    /// Whether the client's users get pairwise subject identifiers (OpenID Connect Core §8.1).
    package var pairwiseSubjects: Bool {
        get { settings.subjectType == "pairwise" }
        set { settings.subjectType = newValue ? "pairwise" : "public" }
    }

    /// The pairwise sector (OpenID Connect Core §8.1); `nil` for a client with public subjects.
    /// Only a host the client has proven to be its own counts, so no client can take another's
    /// sector and see its `sub`s:
    /// - the host of `sector_identifier_uri`, whose document that host served listing the
    ///   client's redirect URIs (``settings``; checked at every create and update);
    /// - for an admin-made client, the one host of its https redirect URIs (the admin vouches
    ///   for them; its private-use and loopback ones do not count);
    /// - else (a self-registered client without a sector document, or redirect URIs without an
    ///   https host: private-use schemes, loopback) the client is a sector of its own.
    package var sector: String? {
        guard pairwiseSubjects else { return nil }
        if let uri = settings.sectorIdentifierURI, let host = URLComponents(string: uri)?.host, !host.isEmpty {
            return host.lowercased()
        }
        let https = redirectURIs.filter { $0.lowercased().hasPrefix("https:") }
        if !isSelfRegistered, let host = Self.httpsHost(of: https) { return host }
        return "client:" + clientID
    }

    /// The one host of `uris` when each is https and they share it; else `nil`.
    package static func httpsHost(of uris: [String]) -> String? {
        let hosts = uris.map { uri -> String? in
            guard let url = URLComponents(string: uri), url.scheme?.lowercased() == "https",
                let host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            return host
        }
        guard let first = hosts.first ?? nil, hosts.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// Where logout tokens go (OpenID Connect Back-Channel Logout 1.0); `nil`: none.
    package var backchannelLogoutURI: String? {
        get { settings.backchannelLogoutURI }
        set { settings.backchannelLogoutURI = newValue }
    }

    package var tlsCertificateBoundAccessTokens: Bool {
        get { settings.tlsClientCertificateBoundAccessTokens ?? false }
        set { settings.tlsClientCertificateBoundAccessTokens = newValue }
    }
}

extension ClientMetadata {
    /// The value with certificate-bound access tokens off.
    fileprivate func withBoundTokensOff() -> ClientMetadata {
        var value = self
        value.tlsClientCertificateBoundAccessTokens = false
        return value
    }
}

/// The OAuth clients and the access tokens revoked before they expire, shared by every
/// instance on the database.
package protocol OAuthClientStore: Sendable {
    /// Adds a client; ``StoreError/Code/conflict`` when the client id exists.
    func insertOAuthClient(_ client: OAuthClientRecord) async throws
    /// A client of the application; `nil` when the id is unknown or another application's.
    func oauthClient(applicationID: UUID, clientID: String) async throws -> OAuthClientRecord?
    /// The application and, when it has one by that id, its client, read in one statement (the
    /// OAuth endpoints need both on every request); `nil` when the application is unknown.
    func application(id: UUID, withOAuthClient clientID: String) async throws
        -> (application: ApplicationRecord, client: OAuthClientRecord?)?
    /// The application's clients, oldest first.
    func oauthClients(applicationID: UUID) async throws -> [OAuthClientRecord]
    /// Replaces a client's settings (and secret hash); `false` when there is no such client.
    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool
    /// Replaces a self-registered client's settings (RFC 7592 §2.2) only while its registration
    /// access token hash is still `presentedToken`, in one statement: of concurrent updates and
    /// reads with one token, on any instance, one succeeds. `false` otherwise.
    func updateRegisteredClient(_ client: OAuthClientRecord, presentedToken: [UInt8]) async throws -> Bool
    /// Replaces a client's registration access token hash, only while it is still `current`:
    /// of concurrent callers, on any instance, one succeeds.
    func replaceRegistrationToken(applicationID: UUID, clientID: String, current: [UInt8], new: [UInt8])
        async throws -> Bool
    /// Removes a client; `false` when there was none.
    func deleteOAuthClient(applicationID: UUID, clientID: String) async throws -> Bool
    /// Records that the access token `jti` is revoked until it expires at `expiresAt`.
    func revokeAccessToken(jti: String, applicationID: UUID, expiresAt: Date) async throws
    /// Whether any of the access tokens `jtis` of the application was revoked (a token and its
    /// family are asked about in one statement).
    func isAnyAccessTokenRevoked(jtis: [String], applicationID: UUID) async throws -> Bool
}

extension OAuthClientStore {
    /// Whether the access token `jti` of the application was revoked.
    package func isAccessTokenRevoked(jti: String, applicationID: UUID) async throws -> Bool {
        try await isAnyAccessTokenRevoked(jtis: [jti], applicationID: applicationID)
    }
}
