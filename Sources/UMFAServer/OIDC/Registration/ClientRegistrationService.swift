import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Dynamic client registration (RFC 7591) at `<issuer>/register` and its management protocol
/// (RFC 7592) at `<issuer>/register/<client_id>` (docs/contract.md §5). The HTTP edge
/// (``ClientRegistrationRoutes``) reads the request and writes the answer; this service takes
/// and returns contract values.
///
/// Registration needs an initial access token: one the admin issued (``InitialAccessTokenService``),
/// or an access token with scope `dcr` that a `dcr_template` client got by `client_credentials`
/// (DPoP-proven when bound). A client registered from a template — the `dcr` token's client, or
/// the `software_id` an admin-issued token names — inherits every protection of the template and
/// may only tighten it, here and at every update (``ClientMetadataInheritance``); its own request
/// gives its name, redirect URIs and keys, and it is first-party only when all its redirect URIs
/// are the template's own (``ClientRegistrationRules``). A client without template asks only for
/// scopes its initial access token or the application allows. No self-registered client takes
/// the name of the application or of an admin-made client (``ClientNameReservation``) or holds
/// `umfa:passkeys`. The answer holds
/// the client secret (when its method uses one) and a registration access token, both shown
/// once and stored as SHA-256. The bearer token is checked before anything else is read, and
/// invalid metadata changes nothing: not even a use of the token.
struct ClientRegistrationService: Sendable {
    /// The check of a `dcr` access token at the registration endpoint.
    let registrationEndpoint: ProtectedResource
    /// The stores registration reads and changes.
    let store: any OAuthClientStore & InitialAccessTokenStore
    /// Seals new client secrets.
    let sealed: SealedSecrets
    /// Checks a pairwise client's sector identifier document.
    let sectorDocuments: SectorIdentifierDocuments
    let abuse: AbuseGuard
    let audit: AuditLog
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer
    let caller: Caller

    /// The scope of a template's registration token.
    static let scope = "dcr"
    static let initialAccessTokenPrefix = "umfa_iat_"
    static let registrationTokenPrefix = "umfa_rat_"

    /// The client's sector identifier document, fetched as for a client anyone may register
    /// (public addresses only); a refusal is `invalid_client_metadata` (RFC 7591 §3.2.2).
    private func checkSector(_ client: OAuthClientRecord) async throws {
        do {
            try await sectorDocuments.check(client, selfRegistered: true)
        } catch let error as ServiceError {
            throw OAuthError(code: .invalidClientMetadata, error.message)
        }
    }

    /// Who may register, as its bearer token says.
    enum Authority {
        /// A live admin-issued initial access token, spent when the client is stored.
        case initialAccessToken(InitialAccessTokenRecord)
        /// A `dcr` access token of this template client.
        case template(OAuthClientRecord)
    }

    /// `POST <issuer>/register`: the bearer token is judged first (``authority(_:)``), then the
    /// metadata, which `metadata` decodes only when asked.
    func register(
        presented: ProtectedResource.Presented, metadata: () async throws -> ClientRegistrationRequest
    ) async throws -> ClientRegistrationResponse {
        let authority = try await authority(presented)
        let body = try await metadata()
        let answer = try await register(body, authority: authority)
        var details: [String: JSONValue] = ["client_id": .string(answer.clientID)]
        if case .template(let template) = authority { details["template"] = .string(template.clientID) }
        if let softwareID = body.softwareID { details["software_id"] = .string(softwareID) }
        await audit.record(
            .oauthClientRegistered, application: issuer.application.id, actor: .anonymous, caller: caller,
            details: details)
        return answer
    }

    /// `GET <issuer>/register/<client_id>` (RFC 7592 §2.1). The answer carries a new
    /// registration access token, which replaces the one presented (RFC 7592 §3 allows it, and
    /// OpenID Connect Registration 1.0 §3.2 wants the token beside `registration_client_uri`:
    /// UMFA keeps only its hash, so it cannot show the old one).
    func read(clientID: String?, presented: ProtectedResource.Presented) async throws -> ClientRegistrationResponse {
        let client = try await managedClient(clientID, presented: presented)
        let token = Secrets.make(prefix: Self.registrationTokenPrefix)
        guard let current = client.registrationTokenHash,
            try await store.replaceRegistrationToken(
                applicationID: client.applicationID, clientID: client.clientID, current: current,
                new: Secrets.hash(token))
        else { throw Self.staleRegistrationToken }
        var answer = Self.answer(client, issuer: issuer)
        answer.registrationAccessToken = token
        return answer
    }

    /// `PUT <issuer>/register/<client_id>` (RFC 7592 §2.2): the request replaces the client's
    /// metadata; members left out take their defaults (or the template's). A client made from a
    /// template may only tighten the template's protections, as at registration. A new
    /// registration access token replaces the one presented, as at a read.
    func update(
        clientID: String?, presented: ProtectedResource.Presented,
        metadata: () async throws -> ClientRegistrationRequest
    ) async throws -> ClientRegistrationResponse {
        let stored = try await managedClient(clientID, presented: presented)
        let body = try await metadata()
        guard body.clientID == stored.clientID else {
            throw OAuthError(code: .invalidRequest, "client_id must be the client's own id")
        }
        if let secret = body.clientSecret {
            guard let hash = stored.secretHash, constantTimeEqual(Secrets.hash(secret), hash) else {
                throw OAuthError(code: .invalidClientMetadata, "client_secret is not the client's secret")
            }
        }
        // A client made from a template is held to the template's protections while its
        // software_id still names a template; otherwise to its own current ones, never
        // first-party, so an update never widens what the template allowed.
        var template: OAuthClientRecord?
        if let softwareID = stored.softwareID {
            let named = try await store.oauthClient(
                applicationID: issuer.application.id, clientID: softwareID)
            template = named.flatMap { $0.dcrTemplate ? $0 : nil } ?? stored
        }
        // Without a template: the scopes the application allows, or those it already has.
        let allowed = issuer.application.allowedScopes + stored.scopes
        var client = try ClientRegistrationRules.client(
            from: body, template: template, base: Self.blank(like: stored), allowedScopes: allowed)
        try await reservedNames().check(client.name)
        // The base keeps the registration token's hash: the client is judged as self-registered.
        do {
            try OAuthClientSettings.checkSectorKept(client, stored: stored)
        } catch let error as ServiceError {
            throw OAuthError(code: .invalidClientMetadata, error.message)
        }
        try await checkSector(client)
        client.softwareID = stored.softwareID
        if let template { client.firstParty = ClientRegistrationRules.isFirstParty(client, template: template) }
        let token = Secrets.make(prefix: Self.registrationTokenPrefix)
        client.registrationTokenHash = Secrets.hash(token)
        var answer = Self.answer(client, issuer: issuer)
        answer.registrationAccessToken = token
        if client.authenticationMethod.usesSecret {
            if stored.secretHash == nil || client.authenticationMethod != stored.authenticationMethod {
                answer.clientSecret = try OAuthClientSettings.newSecret(for: &client, sealed: sealed)
                answer.clientSecretExpiresAt = 0
            } else {
                (client.secretHash, client.sealedSecret) = (stored.secretHash, stored.sealedSecret)
            }
        }
        // Compare-and-set on the token presented: of two updates (or an update and a read)
        // racing with one token, one wins and the other is refused.
        guard let presentedHash = stored.registrationTokenHash,
            try await store.updateRegisteredClient(client, presentedToken: presentedHash)
        else { throw Self.staleRegistrationToken }
        return answer
    }

    /// `DELETE <issuer>/register/<client_id>` (RFC 7592 §2.3).
    func delete(clientID: String?, presented: ProtectedResource.Presented) async throws {
        let client = try await managedClient(clientID, presented: presented)
        if try await store.deleteOAuthClient(applicationID: issuer.application.id, clientID: client.clientID) {
            await audit.record(
                .oauthClientDeleted, application: client.applicationID, actor: .client(client.clientID),
                caller: caller, details: ["client_id": .string(client.clientID)])
        }
    }

    // MARK: Registration

    private func register(_ body: ClientRegistrationRequest, authority: Authority) async throws
        -> ClientRegistrationResponse
    {
        let applicationID = issuer.application.id
        var template: OAuthClientRecord?
        var allowedScopes = issuer.application.allowedScopes
        switch authority {
        case .template(let client):
            // Step: the token's template is the one copied; another software_id is refused.
            guard body.softwareID == nil || body.softwareID == client.clientID else {
                throw OAuthError(
                    code: .invalidClientMetadata, "software_id must be the template the access token was issued to")
            }
            template = client
        case .initialAccessToken(let token):
            if let scopes = token.scopes { allowedScopes = scopes }
            if let softwareID = body.softwareID {
                guard
                    let named = try await store.oauthClient(
                        applicationID: applicationID, clientID: softwareID),
                    named.dcrTemplate
                else {
                    throw OAuthError(code: .invalidClientMetadata, "software_id names no dcr_template client")
                }
                template = named
            }
        }
        var client = try ClientRegistrationRules.client(
            from: body, template: template,
            base: OAuthClientSettings.newClient(applicationID: applicationID, at: now()),
            allowedScopes: allowedScopes)
        try await reservedNames().check(client.name)
        try await checkSector(client)
        let registrationToken = Secrets.make(prefix: Self.registrationTokenPrefix)
        client.registrationTokenHash = Secrets.hash(registrationToken)
        var answer = Self.answer(client, issuer: issuer)
        if client.authenticationMethod.usesSecret {
            answer.clientSecret = try OAuthClientSettings.newSecret(for: &client, sealed: sealed)
            answer.clientSecretExpiresAt = 0
        }
        answer.registrationAccessToken = registrationToken
        // The metadata is valid: only now is a use of the admin's token spent.
        if case .initialAccessToken(let token) = authority {
            guard
                try await store.spendInitialAccessToken(
                    hash: token.tokenHash, applicationID: applicationID, at: now())
            else { throw Self.badInitialAccessToken }
        }
        try await store.insertOAuthClient(client)
        return answer
    }

    /// The names a self-registered client may not take: the application's and its admin-made
    /// clients' (``ClientNameReservation``).
    private func reservedNames() async throws -> ClientNameReservation {
        ClientNameReservation(
            application: issuer.application,
            clients: try await store.oauthClients(applicationID: issuer.application.id))
    }

    /// A stored client's identity with every setting at its default, for a replacement.
    private static func blank(like client: OAuthClientRecord) -> OAuthClientRecord {
        var blank = OAuthClientSettings.newClient(applicationID: client.applicationID, at: client.createdAt)
        blank.clientID = client.clientID
        blank.registrationTokenHash = client.registrationTokenHash
        return blank
    }

    static func answer(_ client: OAuthClientRecord, issuer: OAuthIssuer) -> ClientRegistrationResponse {
        ClientRegistrationResponse(
            clientID: client.clientID, clientIDIssuedAt: Int(client.createdAt.timeIntervalSince1970),
            registrationClientURI: issuer.issuer + "/register/" + client.clientID, metadata: client.settings)
    }

}
