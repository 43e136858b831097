import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Dynamic client registration (RFC 7591) at `<issuer>/register` and its management protocol
/// (RFC 7592) at `<issuer>/register/<client_id>` (DESIGN.md §5).
///
/// Registration needs an initial access token: one the admin issued (``InitialAccessTokens``),
/// or an access token with scope `dcr` that a `dcr_template` client got by `client_credentials`
/// (DPoP-proven when bound). A client registered from a template — the `dcr` token's client, or
/// the `software_id` an admin-issued token names — takes the template's grant types, response
/// types, authentication method, scopes, token lifetimes and `dpop_bound_access_tokens`; its own
/// request gives only its name, redirect URIs and keys, and it is first-party only when all its
/// redirect URIs are the template's own (``ClientRegistrationRules``). A client without template
/// asks only for scopes its initial access token or the application allows. The answer holds
/// the client secret (when its method uses one) and a registration access token, both shown
/// once and stored as SHA-256. The bearer token is checked before anything else is read, and
/// invalid metadata changes nothing: not even a use of the token.
struct ClientRegistrationEndpoint: Sendable {
    let services: ServerServices

    /// The scope of a template's registration token.
    static let scope = "dcr"
    static let initialAccessTokenPrefix = "umfa_iat_"
    static let registrationTokenPrefix = "umfa_rat_"

    /// Who may register, as its bearer token says.
    private enum Authority {
        /// A live admin-issued initial access token, spent when the client is stored.
        case initialAccessToken(InitialAccessTokenRecord)
        /// A `dcr` access token of this template client.
        case template(OAuthClientRecord)
    }

    // MARK: Routes

    /// `POST <issuer>/register`.
    var register: RouteHandler {
        route(status: .created) { exchange in
            let authority = try await authority(
                of: exchange.request, issuer: exchange.issuer, caller: exchange.caller)
            let body = try await metadata(of: exchange)
            let answer = try await register(body, authority: authority, issuer: exchange.issuer)
            var details: [String: JSONValue] = ["client_id": .string(answer.clientID)]
            if case .template(let template) = authority { details["template"] = .string(template.clientID) }
            if let softwareID = body.softwareID { details["software_id"] = .string(softwareID) }
            await services.audit.record(
                .oauthClientRegistered, application: exchange.issuer.application.id, actor: .anonymous,
                caller: exchange.caller, details: details)
            return answer
        }
    }

    /// `GET <issuer>/register/<client_id>` (RFC 7592 §2.1). The answer carries a new
    /// registration access token, which replaces the one presented (RFC 7592 §3 allows it, and
    /// OpenID Connect Registration 1.0 §3.2 wants the token beside `registration_client_uri`:
    /// UMFA keeps only its hash, so it cannot show the old one).
    var read: RouteHandler {
        route { exchange in
            let client = try await managedClient(exchange)
            let token = Secrets.make(prefix: Self.registrationTokenPrefix)
            guard let current = client.registrationTokenHash,
                try await services.store.replaceRegistrationToken(
                    applicationID: client.applicationID, clientID: client.clientID, current: current,
                    new: Secrets.hash(token))
            else { throw Self.staleRegistrationToken }
            var answer = Self.answer(client, issuer: exchange.issuer)
            answer.registrationAccessToken = token
            return answer
        }
    }

    /// `PUT <issuer>/register/<client_id>` (RFC 7592 §2.2): the request replaces the client's
    /// metadata; members left out take their defaults (or the template's). A new registration
    /// access token replaces the one presented, as at a read.
    var update: RouteHandler {
        route { exchange in
            let issuer = exchange.issuer
            let stored = try await managedClient(exchange)
            let body = try await metadata(of: exchange)
            guard body.clientID == stored.clientID else {
                throw OAuthError(code: .invalidRequest, "client_id must be the client's own id")
            }
            if let secret = body.clientSecret {
                guard let hash = stored.secretHash, constantTimeEqual(Secrets.hash(secret), hash) else {
                    throw OAuthError(code: .invalidClientMetadata, "client_secret is not the client's secret")
                }
            }
            // A client made from a template keeps the template's settings while its software_id
            // still names a template; otherwise its own current ones, never first-party, so an
            // update never widens what the template allowed.
            var template: OAuthClientRecord?
            if let softwareID = stored.softwareID {
                let named = try await services.store.oauthClient(
                    applicationID: issuer.application.id, clientID: softwareID)
                template = named.flatMap { $0.dcrTemplate ? $0 : nil } ?? stored
            }
            // Without a template: the scopes the application allows, or those it already has.
            let allowed = issuer.application.allowedScopes + stored.scopes
            var client = try ClientRegistrationRules.client(
                from: body, template: template, base: Self.blank(like: stored), allowedScopes: allowed)
            client.softwareID = stored.softwareID
            if let template { client.firstParty = ClientRegistrationRules.isFirstParty(client, template: template) }
            let token = Secrets.make(prefix: Self.registrationTokenPrefix)
            client.registrationTokenHash = Secrets.hash(token)
            var answer = Self.answer(client, issuer: issuer)
            answer.registrationAccessToken = token
            if client.authenticationMethod.usesSecret {
                if stored.secretHash == nil || client.authenticationMethod != stored.authenticationMethod {
                    answer.clientSecret = try OAuthClientSettings.newSecret(for: &client, masterKey: services.masterKey)
                    answer.clientSecretExpiresAt = 0
                } else {
                    (client.secretHash, client.sealedSecret) = (stored.secretHash, stored.sealedSecret)
                }
            }
            // Compare-and-set on the token presented: of two updates (or an update and a read)
            // racing with one token, one wins and the other is refused.
            guard let presented = stored.registrationTokenHash,
                try await services.store.updateRegisteredClient(client, presentedToken: presented)
            else { throw Self.staleRegistrationToken }
            return answer
        }
    }

    /// `DELETE <issuer>/register/<client_id>` (RFC 7592 §2.3): 204.
    var delete: RouteHandler {
        handler { exchange in
            let client = try await managedClient(exchange)
            if try await services.store.deleteOAuthClient(
                applicationID: exchange.issuer.application.id, clientID: client.clientID)
            {
                await services.audit.record(
                    .oauthClientDeleted, application: client.applicationID, actor: .client(client.clientID),
                    caller: exchange.caller, details: ["client_id": .string(client.clientID)])
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    // MARK: Registration

    private func register(_ body: ClientRegistrationRequest, authority: Authority, issuer: OAuthIssuer) async throws
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
                    let named = try await services.store.oauthClient(
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
            base: OAuthClientSettings.newClient(applicationID: applicationID, at: services.now()),
            allowedScopes: allowedScopes)
        let registrationToken = Secrets.make(prefix: Self.registrationTokenPrefix)
        client.registrationTokenHash = Secrets.hash(registrationToken)
        var answer = Self.answer(client, issuer: issuer)
        if client.authenticationMethod.usesSecret {
            answer.clientSecret = try OAuthClientSettings.newSecret(for: &client, masterKey: services.masterKey)
            answer.clientSecretExpiresAt = 0
        }
        answer.registrationAccessToken = registrationToken
        // The metadata is valid: only now is a use of the admin's token spent.
        if case .initialAccessToken(let token) = authority {
            guard
                try await services.store.spendInitialAccessToken(
                    hash: token.tokenHash, applicationID: applicationID, at: services.now())
            else { throw Self.badInitialAccessToken }
        }
        try await services.store.insertOAuthClient(client)
        return answer
    }

    /// A stored client's identity with every setting at its default, for a replacement.
    private static func blank(like client: OAuthClientRecord) -> OAuthClientRecord {
        var blank = OAuthClientSettings.newClient(applicationID: client.applicationID, at: client.createdAt)
        blank.clientID = client.clientID
        blank.registrationTokenHash = client.registrationTokenHash
        return blank
    }

    static func answer(_ client: OAuthClientRecord, issuer: OAuthIssuer) -> ClientRegistrationResponse {
        var answer = ClientRegistrationResponse(
            clientID: client.clientID, clientIDIssuedAt: Int(client.createdAt.timeIntervalSince1970),
            registrationClientURI: issuer.issuer + "/register/" + client.clientID, clientName: client.name,
            redirectURIs: client.redirectURIs, grantTypes: client.grantTypes, responseTypes: client.responseTypes,
            tokenEndpointAuthMethod: client.authenticationMethod.rawValue, scope: client.scopes.joined(separator: " "),
            postLogoutRedirectURIs: client.postLogoutRedirectURIs, dpopBoundAccessTokens: client.dpopBoundAccessTokens)
        answer.jwks = client.jwks.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        answer.softwareID = client.softwareID
        return answer
    }

    // MARK: Tokens

    private static let staleRegistrationToken = ProtectedResource.Refusal(
        error: OAuthError(code: .invalidToken, "The registration access token was replaced or the client removed"))

    private static let badInitialAccessToken = ProtectedResource.Refusal(
        error: OAuthError(code: .invalidToken, "The initial access token is invalid, expired or used up"))

    /// Who registers: a live admin-issued initial access token (checked, not yet spent), or a
    /// live `dcr` access token of a client that is still a template. Nothing of the request is
    /// read before this, so a caller without a token learns nothing (not even whether a
    /// `software_id` names a template); a token that fails counts against the caller's address.
    private func authority(of request: Request, issuer: OAuthIssuer, caller: Caller) async throws -> Authority {
        let header = request.headers[.authorization]
        if let (scheme, token) = ProtectedResource.credentials(header), scheme == .bearer,
            token.hasPrefix(Self.initialAccessTokenPrefix)
        {
            guard
                let live = try await services.store.liveInitialAccessToken(
                    hash: Secrets.hash(token), applicationID: issuer.application.id, at: services.now())
            else {
                do {
                    try await services.abuse.refuseCredential(caller, .unauthenticated("initial access token"))
                } catch let error as ServiceError where error.code == .unauthenticated {
                    throw Self.badInitialAccessToken
                }
            }
            return .initialAccessToken(live)
        }
        let claims = try await ProtectedResource(services: services, issuer: issuer, url: issuer.issuer + "/register")
            .claims(of: request) { $0.authTime == nil && $0.scope.split(separator: " ").contains("dcr") }
        guard
            let template = try await services.store.oauthClient(
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
    private func managedClient(_ exchange: Exchange) async throws -> OAuthClientRecord {
        let issuer = exchange.issuer
        let refusal = ProtectedResource.Refusal(
            error: OAuthError(code: .invalidToken, "The registration access token is not valid for this client"))
        guard let (scheme, token) = ProtectedResource.credentials(exchange.request.headers[.authorization]),
            scheme == .bearer
        else { throw ProtectedResource.Refusal(error: nil) }
        guard let clientID = RouteValues(request: exchange.request, context: exchange.context).path("client_id"),
            let client = try await services.store.oauthClient(applicationID: issuer.application.id, clientID: clientID),
            let stored = client.registrationTokenHash, constantTimeEqual(Secrets.hash(token), stored)
        else {
            do {
                try await services.abuse.refuseCredential(
                    exchange.caller, .unauthenticated("registration access token"))
            } catch let error as ServiceError where error.code == .unauthenticated {
                throw refusal
            }
        }
        return client
    }

    // MARK: Plumbing

    /// One request to these endpoints, with its issuer.
    private struct Exchange: Sendable {
        let request: Request
        let context: UMFARequestContext
        let issuer: OAuthIssuer
        let caller: Caller
    }

    private func metadata(of exchange: Exchange) async throws -> ClientRegistrationRequest {
        do {
            return try await JSONExchange.read(exchange.request, context: exchange.context)
                .decode(ClientRegistrationRequest.self)
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw OAuthError(code: .invalidClientMetadata, error.message)
        }
    }

    /// A JSON answer.
    private func route<Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, _ call: @escaping @Sendable (Exchange) async throws -> Answer
    ) -> RouteHandler {
        handler { try JSONExchange.response(try await call($0), status: status) }
    }

    /// The issuer of the path looked up; every failure in RFC 6749 §5.2 shape, a token refused
    /// with its `WWW-Authenticate` challenge.
    private func handler(_ call: @escaping @Sendable (Exchange) async throws -> Response) -> RouteHandler {
        { request, context in
            let traceID = TraceID.from(request, context: context)
            do {
                let issuer = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
                return try await call(
                    Exchange(
                        request: request, context: context, issuer: issuer,
                        caller: context.caller(request, traceID: traceID)))
            } catch {
                return response(for: error, traceID: traceID)
            }
        }
    }

    private func response(for error: any Error, traceID: String) -> Response {
        if let refusal = error as? ProtectedResource.Refusal {
            return ProtectedResource.challenge(refusal, traceID: traceID, services: services)
        }
        return ErrorMap.oauthResponse(for: error, traceID: traceID, logger: services.logger)
    }
}
