import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens

/// The rules an OAuth client's settings follow (docs/contract.md §5), checked once at the admin API:
/// a request that breaks one is 400 naming the member, and nothing is stored.
enum OAuthClientSettings {
    static let accessTokenTTL = 60...86_400
    static let refreshTokenTTL = 60...31_536_000
    static let grantTypes = Set(GrantRegistry.grantTypes)

    /// The settings of a new client before its request is applied.
    static func newClient(applicationID: UUID, at now: Date) -> OAuthClientRecord {
        OAuthClientRecord(
            clientID: "umfa_ci_" + Base64URL.encode(Secrets.randomBytes(16)), applicationID: applicationID,
            createdAt: now)
    }

    /// A new secret for `client`: its SHA-256 stored, and for `client_secret_jwt` the secret
    /// itself sealed (an HMAC is checked with the secret, not its hash).
    /// The old one stops working when the record is stored.
    static func newSecret(for client: inout OAuthClientRecord, sealed: SealedSecrets) throws -> String {
        let secret = Secrets.make(prefix: "umfa_cs_")
        client.secretHash = Secrets.hash(secret)
        client.sealedSecret =
            client.authenticationMethod == .clientSecretJWT
            ? try sealed.seal(secret, for: .clientSecret(clientID: client.clientID)) : nil
        return secret
    }

    /// `client` with `request` applied (a new client starts from `client` as the defaults).
    /// Members the caller may not set are left out first (``ClientMetadata/Member/origin``).
    static func apply(
        _ request: OAuthClientRequest, to client: OAuthClientRecord, from caller: ClientMetadata.Caller = .admin
    ) throws -> OAuthClientRecord {
        let request = request.accepted(from: caller)
        var client = client
        if let name = request.clientName {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(trimmed.utf8.count), !trimmed.utf8.contains(0) else {
                throw ServiceError.invalid(
                    "\(Member.clientName) must be 1 to 200 bytes of UTF-8", field: Member.clientName.stringValue)
            }
            client.name = trimmed
        }
        if let method = request.tokenEndpointAuthMethod {
            guard let parsed = ClientAuthenticationMethod(rawValue: method) else {
                throw ServiceError.invalid(
                    "\(Member.tokenEndpointAuthMethod) must be one of \(ClientAuthenticationMethod.allCases.map(\.rawValue))",
                    field: Member.tokenEndpointAuthMethod.stringValue)
            }
            client.authenticationMethod = parsed
        }
        if let grants = request.grantTypes {
            guard !grants.isEmpty, Set(grants).isSubset(of: grantTypes), Set(grants).count == grants.count else {
                throw ServiceError.invalid(
                    "\(Member.grantTypes) must be distinct values of \(grantTypes.sorted())",
                    field: Member.grantTypes.stringValue)
            }
            client.grantTypes = grants
        }
        if let responses = request.responseTypes {
            guard responses.allSatisfy({ $0 == "code" }), responses.count <= 1 else {
                throw ServiceError.invalid(
                    "\(Member.responseTypes) may only hold \"code\"", field: Member.responseTypes.stringValue)
            }
            client.responseTypes = responses
        }
        if let scope = request.scope { client.scopes = try scopes(scope) }
        if let uris = request.redirectURIs { client.redirectURIs = try uris.map { try redirectURI($0) } }
        if let uris = request.postLogoutRedirectURIs {
            client.postLogoutRedirectURIs = try uris.map {
                try redirectURI($0, field: Member.postLogoutRedirectURIs.stringValue)
            }
        }
        if let uri = request.backchannelLogoutURI {
            client.backchannelLogoutURI =
                uri.isEmpty ? nil : try backchannelLogoutURI(uri, selfRegistered: caller == .registration)
        }
        if let required = request.backchannelLogoutSessionRequired {
            client.settings.backchannelLogoutSessionRequired = required
        }
        if let required = request.requireSignedRequestObject { client.requireSignedRequestObject = required }
        try applyBackchannelAuthentication(
            request, to: &client, selfRegistered: caller == .registration || client.isSelfRegistered)
        try applySubjects(request, to: &client, selfRegistered: caller == .registration || client.isSelfRegistered)
        if let firstParty = request.firstParty { client.firstParty = firstParty }
        if let required = request.requirePushedAuthorizationRequests {
            client.requirePushedAuthorizationRequests = required
        }
        if let bound = request.dpopBoundAccessTokens { client.dpopBoundAccessTokens = bound }
        if let template = request.dcrTemplate { client.dcrTemplate = template }
        if let required = request.attestationRequired { client.attestationRequired = required }
        if let jwks = request.jwks {
            let text = String(decoding: try JSONEncoder().encode(jwks), as: UTF8.self)
            guard text.utf8.count <= 20_000 else {
                throw ServiceError.invalid("\(Member.jwks) must be at most 20,000 bytes")
            }
            // A self-signed mutual-TLS client's keys are its certificates (RFC 8705 §2.2), checked
            // by ``checkMutualTLS(_:)``; others' keys must verify client assertions.
            if client.authenticationMethod != .selfSignedTLSClientAuth,
                let problem = ClientAssertion.problem(inJWKS: text)
            {
                throw ServiceError.invalid(problem)
            }
            client.jwks = text
        }
        if let ttl = request.accessTokenTTLSeconds {
            guard accessTokenTTL.contains(ttl) else {
                throw ServiceError.invalid("\(Member.accessTokenTTLSeconds) must be 60 to 86400")
            }
            client.accessTokenTTLSeconds = ttl
        }
        if let ttl = request.refreshTokenTTLSeconds {
            guard refreshTokenTTL.contains(ttl) else {
                throw ServiceError.invalid("\(Member.refreshTokenTTLSeconds) must be 60 to 31536000")
            }
            client.refreshTokenTTLSeconds = ttl
        }
        try applyMutualTLS(request, to: &client)
        try checkMutualTLS(&client)
        try checkConsistent(client)
        try checkSubjects(client, selfRegistered: caller == .registration || client.isSelfRegistered)
        return client
    }

    /// The settings taken together: a machine grant needs a secret, a code grant a redirect URI.
    private static func checkConsistent(_ client: OAuthClientRecord) throws {
        if client.grantTypes.contains("client_credentials"), !client.authenticationMethod.isConfidential {
            throw ServiceError.invalid("client_credentials needs a confidential client (a secret)")
        }
        if client.dcrTemplate, !client.authenticationMethod.isConfidential {
            throw ServiceError.invalid(
                "\(Member.dcrTemplate) needs a confidential client: it authenticates for \(Member.scope) dcr")
        }
        if client.attestationRequired, client.authenticationMethod != .none {
            throw ServiceError.invalid(
                "\(Member.attestationRequired) is for public clients (\(Member.tokenEndpointAuthMethod) none)")
        }
        if client.authenticationMethod == .privateKeyJWT, client.jwks == nil {
            throw ServiceError.invalid("private_key_jwt needs the client's public keys in \(Member.jwks)")
        }
        if client.grantTypes.contains("authorization_code"), client.redirectURIs.isEmpty {
            throw ServiceError.invalid("authorization_code needs at least one \(Member.redirectURIs) entry")
        }
        // Refresh tokens are issued only for a person's sign-in: the code, device or CIBA grant.
        if client.grantTypes.contains("refresh_token"),
            !client.grantTypes.contains("authorization_code"), !client.grantTypes.contains(DeviceCodeGrant.grantType),
            !client.grantTypes.contains(CIBAGrant.grantType)
        {
            throw ServiceError.invalid(
                "refresh_token goes with \(Member.grantTypes) authorization_code, \(DeviceCodeGrant.grantType) or "
                    + CIBAGrant.grantType)
        }
        // CIBA Core §7.1: the client authenticates, so it is confidential.
        if client.grantTypes.contains(CIBAGrant.grantType), !client.authenticationMethod.isConfidential {
            throw ServiceError.invalid("\(CIBAGrant.grantType) needs a confidential client")
        }
        // CIBA Core §4: a ping-mode client names where it is pinged.
        if client.grantTypes.contains(CIBAGrant.grantType), client.settings.backchannelTokenDeliveryMode == "ping",
            client.settings.backchannelClientNotificationEndpoint == nil
        {
            throw ServiceError.invalid(
                "\(Member.backchannelTokenDeliveryMode) ping needs \(Member.backchannelClientNotificationEndpoint)")
        }
        if client.grantTypes.contains("authorization_code") != client.responseTypes.contains("code") {
            throw ServiceError.invalid(
                "\(Member.responseTypes) [\"code\"] goes with \(Member.grantTypes) authorization_code")
        }
    }

    /// Space-separated scope tokens (RFC 6749 §3.3: printable ASCII but space, `"` and `\`).
    static func scopes(_ text: String) throws -> [String] {
        let tokens = text.split(separator: " ").map(String.init)
        guard tokens.count <= 50,
            tokens.allSatisfy({ token in
                token.utf8.count <= 100
                    && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
            })
        else {
            throw ServiceError.invalid("\(Member.scope) must be space-separated \(Member.scope) tokens (RFC 6749 §3.3)")
        }
        var seen = Set<String>()
        return tokens.filter { seen.insert($0).inserted }
    }

    /// Hosts that name this machine in an http URL a client or webhook may use.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "::1", "localhost"]

    /// A redirect URI a client may register (RFC 6749 §3.1.2, RFC 8252 §7): absolute, no
    /// fragment; https, or http to a loopback address, or a private-use scheme with a dot.
    /// A refusal carries ``ServiceError/Reason/redirectURI`` and `field`.
    static func redirectURI(_ text: String, field: String = Member.redirectURIs.stringValue) throws -> String {
        guard text.utf8.count <= 2000, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            url.fragment == nil
        else {
            throw ServiceError.invalid(
                "\(field) entries must be absolute URIs without a fragment", field: field, reason: .redirectURI)
        }
        let host = url.host?.lowercased() ?? ""
        switch scheme {
        case "https" where !host.isEmpty: return text
        case "http" where loopbackHosts.contains(host): return text
        case _ where scheme.contains(".") && scheme != "http" && scheme != "https": return text
        default:
            throw ServiceError.invalid(
                "\(field) entries must use https, http on a loopback address, or a private-use scheme (RFC 8252)",
                field: field, reason: .redirectURI)
        }
    }
    /// CIBA's delivery mode and notification endpoint (OpenID CIBA Core 1.0 §4): `poll` or `ping`
    /// (`push` is not served); the endpoint is checked as a `backchannel_logout_uri` is.
    private static func applyBackchannelAuthentication(
        _ request: OAuthClientRequest, to client: inout OAuthClientRecord, selfRegistered: Bool
    ) throws {
        if let mode = request.backchannelTokenDeliveryMode {
            guard ["poll", "ping"].contains(mode) else {
                throw ServiceError.invalid(
                    "\(Member.backchannelTokenDeliveryMode) must be poll or ping",
                    field: Member.backchannelTokenDeliveryMode.stringValue)
            }
            client.settings.backchannelTokenDeliveryMode = mode
        }
        if let endpoint = request.backchannelClientNotificationEndpoint {
            client.settings.backchannelClientNotificationEndpoint =
                endpoint.isEmpty
                ? nil
                : try outboundURI(
                    endpoint, field: Member.backchannelClientNotificationEndpoint.stringValue,
                    selfRegistered: selfRegistered)
        }
    }

    /// A `backchannel_logout_uri` (Back-Channel Logout 1.0 §2.2): absolute, https (http only on a
    /// loopback address, as for redirect URIs), a query allowed (mod_auth_openidc registers
    /// `…/redirect_uri?logout=backchannel`), no fragment.
    /// A client that registered itself (RFC 7591) may not name the server's own network: its
    /// URI is anyone's choice (``OutboundAddress``; the dispatcher checks the resolved address too).
    static func backchannelLogoutURI(_ text: String, selfRegistered: Bool = false) throws -> String {
        try outboundURI(text, field: Member.backchannelLogoutURI.stringValue, selfRegistered: selfRegistered)
    }

    /// A URI the server sends to on a client's behalf (logout tokens, CIBA pings): absolute,
    /// https or http on a loopback address, no fragment; for a self-registered client, no
    /// internal address literal.
    static func outboundURI(_ text: String, field: String, selfRegistered: Bool) throws -> String {
        guard text.utf8.count <= 2000, let url = URLComponents(string: text), url.fragment == nil,
            let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty,
            scheme == "https" || (scheme == "http" && loopbackHosts.contains(host))
        else {
            throw ServiceError.invalid(
                "\(field) must be an absolute https URI (http only on a loopback address) without a fragment",
                field: field)
        }
        if selfRegistered, OutboundAddress.isInternalLiteral(host) {
            throw ServiceError.invalid(
                "\(field) of a client that registers itself must be a public https address", field: field)
        }
        return text
    }
}

/// The members a message names, by their wire names.
private typealias Member = ClientMetadata.Member
