import Foundation
import Hummingbird
import UMFAStorage
import UMFATokens

/// `GET <issuer>/logout`, the `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0):
/// ends the SSO session of the browser, then returns it to a `post_logout_redirect_uri` the
/// client registered (with `state`), or shows that the person is signed out.
struct LogoutEndpoint: Sendable {
    let services: ServerServices

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try await OAuthIssuer.lookup(context.parameters.get("application_id"), services: services)
        let query: OAuthForm
        do {
            query = try OAuthForm(encoded: request.uri.query ?? "")
        } catch let error as OAuthError {
            return HostedPages.error(
                title: "This sign-out link is not valid", message: error.description, traceID: traceID)
        }
        // §2: the client is the one named, or the audience of the ID token hint (§3: an expired
        // hint still names it).
        var clientID = query["client_id"]
        if let hint = query["id_token_hint"] {
            guard let audience = try await hintAudience(hint, issuer: issuer) else {
                return HostedPages.error(
                    title: "This sign-out link is not valid", message: "The id_token_hint was not issued here.",
                    traceID: traceID)
            }
            if let clientID, clientID != audience {
                return HostedPages.error(
                    title: "This sign-out link is not valid",
                    message: "client_id differs from the audience of the id_token_hint.", traceID: traceID)
            }
            clientID = audience
        }
        var location: String?
        if let target = query["post_logout_redirect_uri"] {
            guard let clientID,
                let client = try await services.store.oauthClient(
                    applicationID: issuer.application.id, clientID: clientID),
                client.postLogoutRedirectURIs.contains(where: { $0.utf8.elementsEqual(target.utf8) })
            else {
                return HostedPages.error(
                    title: "This sign-out link is not valid",
                    message: "The post_logout_redirect_uri is not one the application registered.", traceID: traceID)
            }
            var parameters: [String] = []
            if let state = query["state"] { parameters.append("state=\(AuthorizationFlow.encode(state))") }
            location = parameters.isEmpty ? target : target + (target.contains("?") ? "&" : "?") + parameters[0]
        }
        let sessions = SSOSessions(grants: OAuthGrants(services: services, issuer: issuer))
        let handle = SSOSessions.cookie(SSOSessions.cookieName, in: request.headers[.cookie])
        let clearCookie = try await sessions.end(handle: handle ?? "")
        var response =
            location.map(AuthorizeEndpoint.seeOther)
            ?? HostedPages.error(
                title: "You are signed out", message: "You can close this page.", traceID: traceID, status: .ok)
        response.headers[.setCookie] = clearCookie
        return response
    }

    /// The `aud` of an ID token this issuer signed, expired or not.
    private func hintAudience(_ token: String, issuer: OAuthIssuer) async throws -> String? {
        struct Hint: Decodable {
            let iss: String
            let aud: String
        }
        guard
            let payload = try? await services.tokens.verifiedPayload(
                of: token, type: JWTType.idToken, now: services.now(), maximumLifetime: 86400),
            let hint = try? JSONDecoder().decode(Hint.self, from: payload),
            hint.iss.utf8.elementsEqual(issuer.issuer.utf8)
        else { return nil }
        return hint.aud
    }
}
