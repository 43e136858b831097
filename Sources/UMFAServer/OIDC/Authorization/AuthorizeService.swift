import Foundation
import UMFAStorage

/// The decisions of `GET <issuer>/authorize` (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2), without
/// HTTP: which request it is (its query, or the pushed request its `request_uri` names), and
/// whether the browser goes straight back (an SSO session, `prompt=none`, an error) or is shown
/// the hosted page in the view the request needs. The edge parses the query and renders the
/// outcome.
struct AuthorizeService: Sendable {
    let flow: AuthorizationFlow
    let sessions: SSOSessions
    /// The stores the request's client and the session's profile are read from.
    let store: any OAuthClientStore & UserProfileStore
    /// The `sub` the request's client knows of a user: what its `login_hint` may name.
    let subjects: SubjectIdentifiers
    let now: @Sendable () -> Date

    /// The hosted page a request needs.
    enum View: Sendable, Equatable {
        case signIn
        case createAccount
        case consent
    }

    /// Where the browser goes.
    enum Outcome: Sendable, Equatable {
        /// Straight back (or to the client's redirect URI with an error).
        case redirect(String)
        /// The hosted page of the new interaction `interaction`.
        case page(View, interaction: String)
    }

    /// The checked request of `query` (or of its PAR `request_uri`), and its client.
    /// - Throws: ``AuthorizationRequest/Failure``.
    func resolve(_ query: OAuthForm) async throws -> (OAuthClientRecord, AuthorizationRequest) {
        if query["request_uri"] != nil { return try await pushedRequest(query) }
        let (client, authorization) = try await AuthorizationRequest.parse(
            query, issuer: flow.issuer, store: store, requestObjects: RequestObjects(grants: flow.grants, now: now))
        guard !client.requirePushedAuthorizationRequests else {
            throw AuthorizationRequest.Failure.redirect(
                OAuthError.invalidRequest("This client must push its authorization requests (PAR, RFC 9126)"),
                to: authorization.redirectURI, state: authorization.state)
        }
        return (client, authorization)
    }

    /// The session decides: reuse it, ask for consent, or show the sign-in page.
    func decide(_ authorization: AuthorizationRequest, client: OAuthClientRecord, cookieHeader: String?)
        async throws -> Outcome
    {
        var signIn = try await sessions.current(cookieHeader: cookieHeader)?.signIn
        if let current = signIn, try await !isUsable(current, for: authorization, client: client) { signIn = nil }
        if authorization.prompt.contains("none") {
            // OpenID Connect Core §3.1.2.6: never show a page.
            guard let signIn else {
                return .redirect(
                    flow.errorRedirect(
                        OAuthError(code: .loginRequired, "No one is signed in"), to: authorization.redirectURI,
                        state: authorization.state))
            }
            guard case .redirect(let location) = try await flow.complete(authorization, client: client, signIn: signIn)
            else {
                return .redirect(
                    flow.errorRedirect(
                        OAuthError(code: .consentRequired, "The user has not consented to these scopes"),
                        to: authorization.redirectURI, state: authorization.state))
            }
            return .redirect(location)
        }
        if let signIn,
            case .redirect(let location) = try await flow.complete(authorization, client: client, signIn: signIn)
        {
            return .redirect(location)
        }
        let view: View =
            signIn != nil
            ? .consent
            : (authorization.prompt.contains("create") && flow.issuer.application.signup == .enabled
                ? .createAccount : .signIn)
        let interaction = try await flow.grants.create(
            .interaction, Interaction(request: authorization, signIn: signIn), lifetime: Interaction.lifetime,
            subject: signIn?.userID)
        return .page(view, interaction: interaction)
    }

    /// Whether the session's sign-in may answer this request: not when the request asks for a
    /// new sign-in (`prompt=login`, `prompt=create`), when it is older than `max_age`, when
    /// `login_hint` names someone else, or when it is below the authentication context the
    /// request asks for (the person is then asked to sign in again: step-up; with `prompt=none`
    /// only a requirement refuses it, a preference is answered with the level reached).
    private func isUsable(_ signIn: SignIn, for authorization: AuthorizationRequest, client: OAuthClientRecord)
        async throws -> Bool
    {
        if authorization.prompt.contains("login") || authorization.prompt.contains("create") { return false }
        if let asked = authorization.authentication {
            let short =
                authorization.prompt.contains("none")
                ? !asked.isMet(by: signIn.level) : asked.asksMore(than: signIn.level)
            if short { return false }
        }
        if let maxAge = authorization.maxAge, Int(now().timeIntervalSince1970) - signIn.authTime > maxAge {
            return false
        }
        // A hint names the user as the client knows it: its own `sub` (a pairwise one, never the
        // user id, which such a client must not be able to test) or the email address.
        let known = subjects.subject(of: signIn.userID, for: client)
        if let hint = authorization.loginHint, !hint.utf8.elementsEqual(known.utf8) {
            let profile = try await store.userProfile(
                applicationID: flow.issuer.application.id, userID: signIn.userID)
            guard let email = profile?.email, email.lowercased() == hint.lowercased() else { return false }
        }
        return true
    }

    /// The pushed request a `request_uri` names, for the `client_id` sent with it, spent now;
    /// the error page when it is unknown, used or expired (RFC 9126 §4).
    private func pushedRequest(_ query: OAuthForm) async throws -> (OAuthClientRecord, AuthorizationRequest) {
        guard let requestURI = query["request_uri"], let clientID = query["client_id"] else {
            throw AuthorizationRequest.Failure.page(
                title: "This sign-in link is incomplete", message: "A request_uri needs its client_id.")
        }
        let expired = AuthorizationRequest.Failure.page(
            title: "This sign-in link has expired",
            message: "Go back to the application and start again (the request_uri is unknown, used or expired).")
        guard requestURI.hasPrefix(PushedAuthorization.requestURIPrefix),
            let found = try await flow.grants
                .consume(.pushedRequest, requestURI, as: AuthorizationRequest.self).found
        else { throw expired }
        guard found.payload.clientID.utf8.elementsEqual(clientID.utf8),
            let client = try await store.oauthClient(applicationID: flow.issuer.application.id, clientID: clientID),
            // The client may have dropped the redirect URI since the request was pushed.
            AuthorizationRequest.matches(found.payload.redirectURI, registered: client.redirectURIs)
        else { throw expired }
        return (client, found.payload)
    }
}
