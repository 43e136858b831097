import Foundation
import Hummingbird

/// `<issuer>/logout`, the `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0), by
/// GET and by POST (§2): parses the request and renders what ``LogoutService`` decides.
struct LogoutRoutes: Sendable {
    let logout: LogoutService

    /// The confirmation form's button and its CSRF field.
    static let confirmField = "logout_confirm"
    static let csrfField = LogoutService.csrfField
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
            return AuthorizeRoutes.seeOther(query.isEmpty ? path : path + "?" + query.joined(separator: "&"))
        }
        return try await answer(
            form, confirmed: true, issuer: issuer, cookieHeader: request.headers[.cookie], traceID: traceID)
    }

    private func answer(
        _ parameters: OAuthForm, confirmed: Bool, issuer: OAuthIssuer, cookieHeader: String?, traceID: String
    ) async throws -> Response {
        let outcome = try await logout.decide(
            parameters, confirmed: confirmed, issuer: issuer, cookieHeader: cookieHeader)
        switch outcome {
        case .invalid(let message):
            return Self.invalid(message, traceID: traceID)
        case .unconfirmed:
            return HostedPages.error(
                title: "You are still signed in",
                message: "This sign-out was not confirmed on this site's own page. Start again from the application.",
                traceID: traceID, status: .forbidden)
        case .confirm(let csrfToken, let clientID, let target, let state):
            return HostedPages.logoutConfirmation(
                issuer: issuer, csrfToken: csrfToken, clientID: clientID, postLogoutRedirectURI: target, state: state)
        case .signedOut(let redirect, let clearCookie):
            var response =
                redirect.map(AuthorizeRoutes.seeOther)
                ?? HostedPages.error(
                    title: "You are signed out", message: "You can close this page.", traceID: traceID, status: .ok)
            response.headers[.setCookie] = clearCookie
            return response
        }
    }

    private static func invalid(_ message: String, traceID: String) -> Response {
        HostedPages.error(title: "This sign-out link is not valid", message: message, traceID: traceID)
    }
}
