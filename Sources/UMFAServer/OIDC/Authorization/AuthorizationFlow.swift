import Crypto
import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The decisions of the authorization endpoint once the person is known: consent, the code, and
/// the redirect back to the client (RFC 6749 §4.1.2, RFC 9207 `iss`).
struct AuthorizationFlow: Sendable {
    let store: any OAuthClientStore & OAuthGrantStore
    let grants: OAuthGrants
    let issuer: OAuthIssuer

    /// What an authorization code stands for.
    struct CodeGrant: Codable, Sendable {
        var request: AuthorizationRequest
        var signIn: SignIn
        /// The family of everything issued with the code: a replayed code revokes it.
        var family: String
    }

    /// A code lives 60 seconds (docs/contract.md §5).
    static let codeLifetime: TimeInterval = 60
    /// A consent is remembered this long.
    static let consentLifetime: TimeInterval = 365 * 86400

    /// Where the person goes after signing in: back to the client with a code, or to consent.
    enum Outcome: Sendable {
        case redirect(String)
        case consent
    }

    /// Issues the code when consent is not needed; otherwise says so.
    func complete(_ request: AuthorizationRequest, client: OAuthClientRecord, signIn: SignIn) async throws -> Outcome {
        guard try await hasConsent(request, client: client, userID: signIn.userID) else { return .consent }
        return .redirect(try await issueCode(request, client: client, signIn: signIn))
    }

    /// First-party clients never ask; others ask once for the scopes, and again for new ones or
    /// when the request says `prompt=consent`.
    func hasConsent(_ request: AuthorizationRequest, client: OAuthClientRecord, userID: String) async throws -> Bool {
        // What a request's authorization details ask (a payment, say) is decided each time, even
        // for the application's own clients: the person sees what they authorize.
        if request.authorizationDetails != nil { return false }
        if try await isFirstParty(client, redirectURI: request.redirectURI) { return true }
        if request.prompt.contains("consent") { return false }
        guard
            let found = try await grants.live(
                .consent, handleHash: consentHash(client: client.clientID, userID: userID), as: [String].self)
        else { return false }
        return request.scopes.allSatisfy(found.payload.contains)
    }

    /// Whether `client` skips consent for a request that returns to `redirectURI`. An admin's
    /// client, as its setting says; a client that registered itself (RFC 7591) only while its
    /// template is a first-party `dcr_template`, every redirect URI it has is the template's own
    /// and so is the request's (a request kept since it was made, by PAR or an interaction, may
    /// name a URI the client has since dropped), checked again here because the template may
    /// have changed since; one without template never.
    func isFirstParty(_ client: OAuthClientRecord, redirectURI: String) async throws -> Bool {
        guard client.firstParty else { return false }
        guard client.registrationTokenHash != nil else { return true }
        guard let softwareID = client.softwareID,
            let template = try await store.oauthClient(
                applicationID: issuer.application.id, clientID: softwareID)
        else { return false }
        return ClientRegistrationRules.isFirstParty(client, template: template)
            && AuthorizationRequest.matches(redirectURI, registered: template.redirectURIs)
    }

    /// Remembers that the user allowed the client these scopes (and those allowed before).
    func recordConsent(_ request: AuthorizationRequest, userID: String) async throws {
        let hash = consentHash(client: request.clientID, userID: userID)
        let earlier = try await grants.live(.consent, handleHash: hash, as: [String].self)?.payload ?? []
        _ = try await store.deleteOAuthGrant(
            kind: .consent, handleHash: hash, applicationID: issuer.application.id)
        let scopes = earlier + request.scopes.filter { !earlier.contains($0) }
        try await grants.store(.consent, handleHash: hash, scopes, lifetime: Self.consentLifetime, subject: userID)
    }

    /// A new code for the request, and the redirect that carries it. A request kept since it was
    /// checked (a pushed request, an interaction of up to ten minutes) goes only to a redirect
    /// URI the client still lists: an RFC 7592 update may have dropped it meanwhile. A sign-in
    /// below the authentication context the request requires gets no code: the redirect carries
    /// `unmet_authentication_requirements` instead (every path to a code passes here).
    func issueCode(_ request: AuthorizationRequest, client: OAuthClientRecord, signIn: SignIn) async throws
        -> String
    {
        guard request.clientID.utf8.elementsEqual(client.clientID.utf8),
            AuthorizationRequest.matches(request.redirectURI, registered: client.redirectURIs)
        else {
            throw ServiceError.forbidden(
                "The application no longer lists this redirect URI: start again from the application")
        }
        if let refusal = unmet(request, signIn: signIn) { return refusal }
        // What the code's tokens name: one of the essential values asked for (Core §5.5.1.1).
        var signIn = signIn
        if let asked = request.authentication { signIn.acr = asked.claimed(for: signIn.level).rawValue }
        signIn.authorizationDetails = request.authorizationDetails
        let family = "f" + Base64URL.encode(Secrets.randomBytes(16))
        let code = try await grants.create(
            .authorizationCode, CodeGrant(request: request, signIn: signIn, family: family),
            lifetime: Self.codeLifetime, family: family, subject: signIn.userID,
            credentialID: signIn.credentialBytes)
        return redirect(request.redirectURI, ["code": code, "state": request.state])
    }

    /// The redirect with `unmet_authentication_requirements` for a sign-in below the
    /// authentication context `request` requires; `nil` when it is met.
    func unmet(_ request: AuthorizationRequest, signIn: SignIn) -> String? {
        guard let asked = request.authentication, !asked.isMet(by: signIn.level) else { return nil }
        return errorRedirect(
            OAuthError(
                code: .unmetAuthenticationRequirements,
                "The sign-in reached \(signIn.level.rawValue); the request requires "
                    + "\(asked.required?.rawValue ?? "more")"),
            to: request.redirectURI, state: request.state)
    }

    /// The redirect that carries an error to the client (RFC 6749 §4.1.2.1).
    func errorRedirect(_ error: OAuthError, to redirectURI: String, state: String?) -> String {
        redirect(
            redirectURI, ["error": error.code.rawValue, "error_description": error.description, "state": state])
    }

    /// `redirectURI` with the parameters and `iss` added to its query.
    func redirect(_ redirectURI: String, _ parameters: KeyValuePairs<String, String?>) -> String {
        var query = parameters.compactMap { name, value in value.map { "\(name)=\(Self.encode($0))" } }
        query.append("iss=\(Self.encode(issuer.issuer))")
        return redirectURI + (ASCIISplit.contains(redirectURI, "?") ? "&" : "?") + query.joined(separator: "&")
    }

    /// The parameters ``redirect(_:_:)`` added to a redirect: the last value of each name, since
    /// they follow whatever query the registered redirect URI has of its own.
    static func responseParameters(_ location: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in URLComponents(string: location)?.queryItems ?? [] {
            if let value = item.value { parameters[item.name] = value }
        }
        return parameters
    }

    private func consentHash(client: String, userID: String) -> [UInt8] {
        Array(SHA256.hash(data: Array("consent\u{1}\(client)\u{1}\(userID)".utf8)))
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
