import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// A validated authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636, and the OpenID
/// Connect Core §3.1.2.1 parameters UMFA honours). Kept with the interaction while the person
/// signs in, and with the code once issued.
struct AuthorizationRequest: Codable, Sendable, Equatable {
    var clientID: String
    var redirectURI: String
    var scopes: [String]
    var state: String?
    var nonce: String?
    /// The PKCE S256 challenge: base64url(SHA-256(code_verifier)).
    var codeChallenge: String
    /// `prompt` values: `none`, `login`, `create`, `consent`.
    var prompt: [String]
    /// An email address or user id to sign in as.
    var loginHint: String?
    /// The longest time since the person last used a passkey, in seconds.
    var maxAge: Int?
    /// `dpop_jkt` (RFC 9449 §10): the code may only be redeemed with a DPoP proof of this key.
    var dpopJKT: String? = nil
    /// What the request asks of the sign-in's authentication context (`acr_values`, `claims`).
    var authentication: AuthenticationRequirement? = nil
    /// What the client asks the person to authorize (RFC 9396 `authorization_details`).
    var authorizationDetails: AuthorizationDetails? = nil

    /// The `prompt` values this provider knows (OpenID Connect Core §3.1.2.1 and the
    /// Initiating User Registration specification's `create`).
    static let promptValues = ["none", "login", "consent", "create"]

    /// Why an authorization request failed: either nothing can be sent back to the client (an
    /// unknown client or a redirect URI it did not register: the person sees an error page,
    /// RFC 6749 §4.1.2.1), or the error goes back to the redirect URI.
    enum Failure: Error {
        /// `code`: what the pushed authorization endpoint, which has no page, answers instead.
        case page(title: String, message: String, code: OAuthError.Code = .invalidRequest)
        case redirect(OAuthError, to: String, state: String?)
    }

    /// Parses and validates the request's query for `issuer`; the client is returned with it.
    /// A request object in the query (`request`, RFC 9101) is unpacked by `requestObjects`.
    static func parse(
        _ query: OAuthForm, issuer: OAuthIssuer, store: any OAuthClientStore, requestObjects: RequestObjects
    ) async throws -> (OAuthClientRecord, AuthorizationRequest) {
        // Step 1: the client and the redirect URI; until both are known good, nothing is
        // redirected anywhere (RFC 6749 §4.1.2.1, §10.15 open redirectors).
        guard let clientID = query["client_id"] else {
            throw Failure.page(title: "This sign-in link is incomplete", message: "The request names no client_id.")
        }
        guard
            let client = try await store.oauthClient(applicationID: issuer.application.id, clientID: clientID),
            client.grantTypes.contains("authorization_code")
        else {
            throw Failure.page(
                title: "This sign-in link is not valid",
                message: "The application that sent you here is not registered with this sign-in service.")
        }
        // Step 1a (RFC 9101 §6.3): a request object's parameters replace the query's.
        let query = try await requestObjects.unpack(query, client: client)
        guard let redirectURI = query["redirect_uri"], Self.matches(redirectURI, registered: client.redirectURIs)
        else {
            throw Failure.page(
                title: "This sign-in link is not valid",
                message: "The redirect_uri is missing or is not one the application registered, so you cannot be "
                    + "sent back to it.")
        }
        let state = query["state"]
        func refuse(_ code: OAuthError.Code, _ description: String) -> Failure {
            .redirect(OAuthError(code: code, description), to: redirectURI, state: state)
        }
        // Step 2: the rest goes back to the client as an error (RFC 6749 §4.1.2.1).
        guard query["request_uri"] == nil else {
            throw refuse(.invalidRequest, "request_uri is only taken from a pushed authorization request (RFC 9126)")
        }
        guard let responseType = query["response_type"] else {
            throw refuse(.invalidRequest, "response_type is required")
        }
        guard responseType == "code", client.responseTypes.contains("code") else {
            throw refuse(.unsupportedResponseType, "response_type must be code")
        }
        if let mode = query["response_mode"], mode != "query" {
            throw refuse(.invalidRequest, "response_mode must be query")
        }
        guard let challenge = query["code_challenge"] else {
            throw refuse(.invalidRequest, "code_challenge is required (PKCE with S256)")
        }
        guard query["code_challenge_method"] == "S256" else {
            throw refuse(.invalidRequest, "code_challenge_method must be S256")
        }
        // RFC 7636 §4.2: base64url of a SHA-256 digest is 43 characters.
        guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Self.isBase64URL) else {
            throw refuse(.invalidRequest, "code_challenge must be the base64url SHA-256 of the code verifier")
        }
        var scopes: [String]
        do {
            scopes = try OAuthClientSettings.scopes(query["scope"] ?? "")
        } catch {
            throw refuse(.invalidScope, "scope must be space-separated scope tokens")
        }
        // Step 2a (OpenID Connect Core §5.5): claims asked for one by one come with the scope
        // that releases them, when the client may be granted it.
        var claims = ClaimsParameter()
        if let text = query["claims"] {
            do {
                claims = try ClaimsParameter.parse(text)
            } catch {
                throw refuse(.invalidRequest, error.reason)
            }
            guard scopes.contains("openid") else {
                throw refuse(.invalidRequest, "claims is an OpenID Connect parameter: ask for the openid scope")
            }
            scopes += claims.scopes.filter { !scopes.contains($0) && client.grantableScopes.contains($0) }
        }
        if let refused = scopes.first(where: { !client.grantableScopes.contains($0) }) {
            throw refuse(.invalidScope, "The client may not ask for the scope \(refused)")
        }
        let prompt = (query["prompt"] ?? "").split(separator: " ").map(String.init)
        if let unknown = prompt.first(where: { !promptValues.contains($0) }) {
            throw refuse(.invalidRequest, "prompt \(unknown) is not supported")
        }
        if prompt.contains("none"), prompt.count > 1 {
            throw refuse(.invalidRequest, "prompt none cannot be combined with other values")
        }
        var maxAge: Int?
        if let text = query["max_age"] {
            guard let value = Int(text), value >= 0 else {
                throw refuse(.invalidRequest, "max_age must be a number of seconds")
            }
            maxAge = value
        }
        if let jkt = query["dpop_jkt"] {
            // An RFC 7638 thumbprint: SHA-256, base64url without padding.
            guard jkt.utf8.count == 43, Base64URL.decode(jkt)?.count == 32 else {
                throw refuse(.invalidRequest, "dpop_jkt must be a JWK SHA-256 thumbprint (RFC 7638)")
            }
        }
        for (name, limit) in [("state", 1024), ("nonce", 512), ("login_hint", 320)] {
            if let value = query[name], value.utf8.count > limit {
                throw refuse(.invalidRequest, "\(name) is longer than \(limit) bytes")
            }
        }
        let authentication = try Self.authentication(query["acr_values"], claims: claims, refuse: refuse)
        // Step 2b (RFC 9396 §2, §5): authorization details of the application's declared types.
        var details: AuthorizationDetails?
        if let text = query["authorization_details"] {
            do {
                details = try AuthorizationDetails.parse(text, types: issuer.application.authorizationDetailsTypes)
            } catch {
                throw refuse(.invalidAuthorizationDetails, error.reason)
            }
        }
        var request = AuthorizationRequest(
            clientID: client.clientID, redirectURI: redirectURI, scopes: scopes, state: state, nonce: query["nonce"],
            codeChallenge: challenge, prompt: prompt, loginHint: query["login_hint"].flatMap(LoginHint.identifier),
            maxAge: maxAge,
            dpopJKT: query["dpop_jkt"], authentication: authentication)
        request.authorizationDetails = details
        return (client, request)
    }

    /// What `acr_values` and the `claims` parameter's `acr` ask of the sign-in; `nil` when
    /// nothing. An essential `acr` none of whose values is one of UMFA's levels can never be met:
    /// `unmet_authentication_requirements` at once (OpenID Connect Unmet Authentication
    /// Requirements 1.0).
    private static func authentication(
        _ acrValues: String?, claims: ClaimsParameter, refuse: (OAuthError.Code, String) -> Failure
    ) throws -> AuthenticationRequirement? {
        var requirement = AuthenticationRequirement()
        if let acrValues {
            guard acrValues.utf8.count <= 1024 else { throw refuse(.invalidRequest, "acr_values is too long") }
            requirement.preferred = AuthenticationRequirement.lowest(
                ASCIISplit.split(acrValues, at: " ").map(String.init))
        }
        if let acr = claims.acr, !acr.values.isEmpty {
            let lowest = AuthenticationRequirement.lowest(acr.values)
            if acr.essential {
                guard let lowest else {
                    throw refuse(
                        .unmetAuthenticationRequirements,
                        "None of the essential acr values is one this provider offers (acr_values_supported)")
                }
                requirement.required = lowest
                requirement.requiredValues = acr.values.compactMap { AuthenticationLevel(acr: $0) }
            } else if let lowest {
                requirement.preferred = [requirement.preferred, lowest].compactMap { $0 }.max()
            }
        }
        return requirement == AuthenticationRequirement() ? nil : requirement
    }

    /// Exact string comparison, except that a loopback redirect URI may use any port (RFC 8252
    /// §7.3): native apps listen on whatever port is free.
    static func matches(_ uri: String, registered: [String]) -> Bool {
        if registered.contains(where: { $0.utf8.elementsEqual(uri.utf8) }) { return true }
        guard let given = URLComponents(string: uri), given.scheme == "http",
            ["127.0.0.1", "[::1]", "::1"].contains(given.host ?? "")
        else { return false }
        return registered.contains { text in
            guard var candidate = URLComponents(string: text), candidate.scheme == "http", candidate.host == given.host
            else { return false }
            candidate.port = given.port
            return candidate.string.map { $0.utf8.elementsEqual(uri.utf8) } ?? false
        }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x5F
    }
}
