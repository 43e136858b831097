import Foundation
import Hummingbird
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// `<issuer>/logout`, the `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0), by
/// GET and by POST (§2).
///
/// The browser's SSO session ends at once only for an `id_token_hint` this issuer signed that
/// belongs to that session (its `sub` and `sid`). Without one, or with one that is not valid or
/// names another session, §2 has the OP ask the End-User: a confirmation page whose form POSTs
/// `logout_confirm` with a CSRF token derived from the session cookie, and only that POST ends
/// the session, so a third-party page cannot sign a person out with a link. Then the browser
/// goes back to a `post_logout_redirect_uri` the client registered (with `state`) when the admin
/// made the client, or, for a client that registered itself, when an unexpired hint names the
/// browser's current session; otherwise the page says that the person is signed out.
struct LogoutEndpoint: Sendable {
    let services: ServerServices

    /// The confirmation form's button and its CSRF field.
    static let confirmField = "logout_confirm"
    static let csrfField = "csrf_token"
    /// The parameters a relying party's POST request carries on to the GET (§2, §3).
    static let requestParameters = [
        "id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales",
    ]

    /// `GET`: the parameters in the query.
    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try context.resolvedIssuer()
        let query: OAuthForm
        do {
            query = try OAuthForm(encoded: request.uri.query ?? "")
        } catch let error as OAuthError {
            return Self.invalid(error.description, traceID: traceID)
        }
        return try await answer(
            query, confirmed: false, issuer: issuer, cookieHeader: request.headers[.cookie], traceID: traceID)
    }

    /// `POST`, a form: with `logout_confirm`, the person's answer on the confirmation page; else a
    /// relying party's request by POST, which goes on as a GET (303) so the browser sends its
    /// session cookie (`SameSite=Lax` keeps it from another site's POST).
    func handlePost(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try context.resolvedIssuer()
        let form: OAuthForm
        do {
            let body = try await JSONExchange.collect(request, timeout: context.bodyReadTimeout)
            form = try OAuthForm(Data(buffer: body), contentType: request.headers[.contentType])
        } catch let error as OAuthError {
            return Self.invalid(error.description, traceID: traceID)
        }
        guard form[Self.confirmField] != nil else {
            let query = Self.requestParameters.compactMap { name in
                form[name].map { AuthorizationFlow.encode(name) + "=" + AuthorizationFlow.encode($0) }
            }
            let path = (URLComponents(string: issuer.issuer)?.path ?? "") + "/logout"
            return AuthorizeEndpoint.seeOther(query.isEmpty ? path : path + "?" + query.joined(separator: "&"))
        }
        return try await answer(
            form, confirmed: true, issuer: issuer, cookieHeader: request.headers[.cookie], traceID: traceID)
    }

    private func answer(
        _ parameters: OAuthForm, confirmed: Bool, issuer: OAuthIssuer, cookieHeader: String?, traceID: String
    ) async throws -> Response {
        // §2: the client is the one named, or the audience of the ID token hint (§3: an expired
        // hint still names it). A hint this issuer did not sign counts as none.
        var hint: Hint?
        if let token = parameters["id_token_hint"] { hint = await self.hint(token, issuer: issuer) }
        var clientID = parameters["client_id"]
        if let hint {
            if let clientID, !clientID.utf8.elementsEqual(hint.aud.utf8) {
                return Self.invalid("client_id differs from the audience of the id_token_hint.", traceID: traceID)
            }
            clientID = hint.aud
        }
        let sessions = SSOSessions(grants: OAuthGrants(services: services, issuer: issuer))
        let handle = SSOSessions.cookie(SSOSessions.cookieName, in: cookieHeader)
        let session = handle == nil ? nil : try await sessions.current(cookieHeader: cookieHeader)
        var location: String?
        let target = parameters["post_logout_redirect_uri"]
        if let target {
            guard let clientID,
                let client = try await services.store.oauthClient(
                    applicationID: issuer.application.id, clientID: clientID),
                client.postLogoutRedirectURIs.contains(where: { $0.utf8.elementsEqual(target.utf8) })
            else {
                return Self.invalid(
                    "The post_logout_redirect_uri is not one the application registered.", traceID: traceID)
            }
            if mayReturn(to: client, hint: hint, session: session?.signIn) {
                let state = parameters["state"].map { "state=" + AuthorizationFlow.encode($0) }
                location = state.map { target + (ASCIISplit.contains(target, "?") ? "&" : "?") + $0 } ?? target
            }
        }
        if let handle, let session {
            if confirmed {
                guard let given = parameters[Self.csrfField],
                    constantTimeEqual(Array(given.utf8), Array(csrfToken(handle).utf8))
                else {
                    return HostedPages.error(
                        title: "You are still signed in",
                        message:
                            "This sign-out was not confirmed on this site's own page. Start again from the application.",
                        traceID: traceID, status: .forbidden)
                }
            } else if hint?.belongs(to: session.signIn) != true {
                return HostedPages.logoutConfirmation(
                    issuer: issuer, csrfToken: csrfToken(handle), clientID: clientID,
                    postLogoutRedirectURI: location == nil ? nil : target, state: parameters["state"])
            }
        }
        // A valid hint for this session, the person's confirmation, or no session to protect.
        let clearCookie = try await sessions.end(handle: handle ?? "")
        var response =
            location.map(AuthorizeEndpoint.seeOther)
            ?? HostedPages.error(
                title: "You are signed out", message: "You can close this page.", traceID: traceID, status: .ok)
        response.headers[.setCookie] = clearCookie
        return response
    }

    /// Whether the browser may be sent on to `client`'s post-logout URI (§2, §3). An admin made
    /// the URIs of its clients, so they are followed with any hint or none. A client that
    /// registered itself chose its own (anyone with an initial access token or a template's
    /// public credentials can), and any ID token this issuer signed for it, expired or of
    /// another browser, would otherwise turn this site into an open redirect to them (issue 47
    /// item 2): it goes back only when the hint names the browser's current session (its `sub`
    /// and `sid`) and has not expired; else the signed-out page.
    private func mayReturn(to client: OAuthClientRecord, hint: Hint?, session: SignIn?) -> Bool {
        guard client.isSelfRegistered else { return true }
        guard let hint, let session, hint.belongs(to: session), let exp = hint.exp else { return false }
        return TimeInterval(exp) > services.now().timeIntervalSince1970
    }

    /// The CSRF token of the confirmation form: derived from the session cookie with the server
    /// secret, so only a page this server rendered for that session knows it.
    func csrfToken(_ handle: String) -> String {
        Base64URL.encode(Secrets.derive("umfa-logout-csrf:" + handle, key: services.serverSecret))
    }

    private static func invalid(_ message: String, traceID: String) -> Response {
        HostedPages.error(title: "This sign-out link is not valid", message: message, traceID: traceID)
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
        /// OP session"): the same user and the same `sid`, byte for byte.
        func belongs(to signIn: SignIn) -> Bool {
            guard let sid else { return false }
            return sub.utf8.elementsEqual(signIn.userID.utf8) && sid.utf8.elementsEqual(signIn.sessionID.utf8)
        }
    }

    /// An ID token this issuer signed, expired or not; `nil` for anything else.
    private func hint(_ token: String, issuer: OAuthIssuer) async -> Hint? {
        guard
            let payload = try? await services.tokens.verifiedPayload(
                of: token, type: JWTType.idToken, now: services.now(), maximumLifetime: 86400),
            let hint = try? JSONDecoder().decode(Hint.self, from: payload),
            hint.iss.utf8.elementsEqual(issuer.issuer.utf8)
        else { return nil }
        return hint
    }
}
