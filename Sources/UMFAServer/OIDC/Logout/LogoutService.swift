import Foundation
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// The decisions of `<issuer>/logout` (OpenID Connect RP-Initiated Logout 1.0 §2, §3), without
/// HTTP: which client, whether the browser's SSO session ends now or the person is asked, and
/// where the browser goes after. The edge (``LogoutRoutes``) parses and renders.
///
/// The session ends at once only for an `id_token_hint` this issuer signed that belongs to that
/// session (its `sub` and `sid`). Without one, or with one that is not valid or names another
/// session, the OP asks the End-User: a confirmation page whose form POSTs `logout_confirm` with
/// a CSRF token derived from the session cookie, and only that POST ends the session, so a
/// third-party page cannot sign a person out with a link. Then the browser goes back to a
/// `post_logout_redirect_uri` the client registered (with `state`) when the admin made the
/// client, or, for a client that registered itself, when an unexpired hint names the browser's
/// current session; otherwise the person sees that they are signed out.
struct LogoutService: Sendable {
    let store: any OAuthClientStore & OAuthGrantStore
    /// Checks ID token hints.
    let tokens: TokenService
    let signIns: SignInCredentials
    /// The server secret the confirmation's CSRF token derives from.
    let serverSecret: [UInt8]
    let now: @Sendable () -> Date

    /// The confirmation form's CSRF field.
    static let csrfField = "csrf_token"

    /// What the edge shows.
    enum Outcome: Sendable, Equatable {
        /// The request is not valid (the error page names why).
        case invalid(String)
        /// A confirmation without the session's CSRF token: the session stays (403).
        case unconfirmed
        /// The person is asked first (§2): the page's CSRF token and what it carries on.
        case confirm(csrfToken: String, clientID: String?, postLogoutRedirectURI: String?, state: String?)
        /// The session has ended: the browser goes to `redirect`, or sees the signed-out page;
        /// `clearCookie` ends the SSO cookie.
        case signedOut(redirect: String?, clearCookie: String)
    }

    /// The outcome of a logout request with `parameters` (the query, or the confirmation form
    /// when `confirmed`) from a browser whose `Cookie` header is `cookieHeader`.
    func decide(_ parameters: OAuthForm, confirmed: Bool, issuer: OAuthIssuer, cookieHeader: String?) async throws
        -> Outcome
    {
        // §2: the client is the one named, or the audience of the ID token hint (§3: an expired
        // hint still names it). A hint this issuer did not sign counts as none.
        var hint: Hint?
        if let token = parameters["id_token_hint"] { hint = await self.hint(token, issuer: issuer) }
        var clientID = parameters["client_id"]
        if let hint {
            if let clientID, !clientID.utf8.elementsEqual(hint.aud.utf8) {
                return .invalid("client_id differs from the audience of the id_token_hint.")
            }
            clientID = hint.aud
        }
        // The hint's `sub` is its client's (a pairwise one, OpenID Connect Core §8.1).
        var hintClient: OAuthClientRecord?
        if let hint {
            hintClient = try await store.oauthClient(applicationID: issuer.application.id, clientID: hint.aud)
        }
        let subjects = SubjectIdentifiers(serverSecret: serverSecret, applicationID: issuer.application.id)
        let belongs = { [hint, hintClient] (signIn: SignIn) -> Bool in
            guard let hint else { return false }
            guard let client = hintClient else {
                return hint.belongs(subject: signIn.userID, session: signIn.sessionID)
            }
            return hint.belongs(
                subject: subjects.subject(of: signIn.userID, for: client),
                session: subjects.session(signIn.sessionID, for: client))
        }
        let sessions = SSOSessions(grants: OAuthGrants(store: store, now: now, issuer: issuer), signIns: signIns)
        let handle = SSOSessions.cookie(SSOSessions.cookieName, in: cookieHeader)
        let session = handle == nil ? nil : try await sessions.current(cookieHeader: cookieHeader)
        var location: String?
        let target = parameters["post_logout_redirect_uri"]
        if let target {
            guard let clientID,
                let client = try await store.oauthClient(
                    applicationID: issuer.application.id, clientID: clientID),
                client.postLogoutRedirectURIs.contains(where: { $0.utf8.elementsEqual(target.utf8) })
            else {
                return .invalid("The post_logout_redirect_uri is not one the application registered.")
            }
            if mayReturn(to: client, hint: hint, belongs: session.map { belongs($0.signIn) } ?? false) {
                let state = parameters["state"].map { "state=" + AuthorizationFlow.encode($0) }
                location = state.map { target + (ASCIISplit.contains(target, "?") ? "&" : "?") + $0 } ?? target
            }
        }
        if let handle, let session {
            if confirmed {
                guard let given = parameters[Self.csrfField],
                    constantTimeEqual(Array(given.utf8), Array(csrfToken(handle).utf8))
                else { return .unconfirmed }
            } else if !belongs(session.signIn) {
                return .confirm(
                    csrfToken: csrfToken(handle), clientID: clientID,
                    postLogoutRedirectURI: location == nil ? nil : target, state: parameters["state"])
            }
        }
        // A valid hint for this session, the person's confirmation, or no session to protect.
        // Back-Channel Logout 1.0 §2.7: the clients of the session hear that it ended (taken first:
        // ending the session ends their records with it).
        let backchannel = signIns.backchannel
        let participants =
            session == nil
            ? [] : await backchannel.take(sessionID: session?.signIn.sessionID ?? "", in: issuer.application.id)
        // Told even when ending the session fails: signing them out is the safe side.
        do {
            let clearCookie = try await sessions.end(handle: handle ?? "")
            await backchannel.send(participants, in: issuer.application.id)
            return .signedOut(redirect: location, clearCookie: clearCookie)
        } catch {
            await backchannel.send(participants, in: issuer.application.id)
            throw error
        }
    }

    /// Whether the browser may be sent on to `client`'s post-logout URI (§2, §3). An admin made
    /// the URIs of its clients, so they are followed with any hint or none. A client that
    /// registered itself chose its own (anyone with an initial access token or a template's
    /// public credentials can), and any ID token this issuer signed for it, expired or of
    /// another browser, would otherwise turn this site into an open redirect to them:
    /// it goes back only when the hint names the browser's current session (its `sub`
    /// and `sid`) and has not expired; else the signed-out page.
    private func mayReturn(to client: OAuthClientRecord, hint: Hint?, belongs: Bool) -> Bool {
        guard client.isSelfRegistered else { return true }
        guard let hint, belongs, let exp = hint.exp else { return false }
        return TimeInterval(exp) > now().timeIntervalSince1970
    }

    /// The CSRF token of the confirmation form: derived from the session cookie with the server
    /// secret, so only a page this server rendered for that session knows it.
    func csrfToken(_ handle: String) -> String {
        Base64URL.encode(Secrets.derive("umfa-logout-csrf:" + handle, key: serverSecret))
    }

    /// The claims of an ID token hint that matter here.
    struct Hint: Decodable {
        let iss: String
        let aud: String
        let sub: String
        let sid: String?
        /// Its expiry: an expired hint still names the client and the session (§3), but does not
        /// vouch for a self-registered client's redirect.
        let exp: Int?

        /// Whether the hint was issued for the session's sign-in (§2: "belongs to the current
        /// OP session"): the `sub` and `sid` the hint's client knows of that sign-in (pairwise
        /// ones of its sector, ``SubjectIdentifiers``), byte for byte.
        func belongs(subject: String, session: String) -> Bool {
            guard let sid else { return false }
            return sub.utf8.elementsEqual(subject.utf8) && sid.utf8.elementsEqual(session.utf8)
        }
    }

    /// An ID token this issuer signed, expired or not; `nil` for anything else.
    private func hint(_ token: String, issuer: OAuthIssuer) async -> Hint? {
        guard
            let payload = try? await tokens.verifiedPayload(
                of: token, type: JWTType.idToken, now: now(), maximumLifetime: 86400),
            let hint = try? JSONDecoder().decode(Hint.self, from: payload),
            hint.iss.utf8.elementsEqual(issuer.issuer.utf8)
        else { return nil }
        return hint
    }
}
