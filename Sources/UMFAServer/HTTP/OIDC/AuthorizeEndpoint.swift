import Foundation
import Hummingbird
import UMFAStorage

/// `GET <issuer>/authorize` (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2): checks the request,
/// then either sends the browser straight back (an SSO session, `prompt=none`, an error) or
/// shows the hosted page in the view the request needs.
struct AuthorizeEndpoint: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try context.resolvedIssuer()
        if APIFlowRoutes.wantsFlow(request) {
            return await APIFlowRoutes(provider: provider).start(request, context: context, issuer: issuer)
        }
        let flow = provider.engine(for: issuer).authorizationFlow
        do {
            let (client, authorization) = try await parse(request, issuer: issuer)
            return try await decide(authorization, client: client, flow: flow, cookies: request.headers[.cookie])
        } catch let failure as AuthorizationRequest.Failure {
            switch failure {
            case .page(let title, let message):
                return HostedPages.error(title: title, message: message, traceID: traceID)
            case .redirect(let error, let redirectURI, let state):
                return Self.seeOther(flow.errorRedirect(error, to: redirectURI, state: state))
            }
        } catch let error as OAuthError {
            return HostedPages.error(
                title: "This sign-in link is not valid", message: error.description, traceID: traceID)
        }
    }

    /// The request of the query (or of its PAR `request_uri`), checked, and its client.
    func parse(_ request: Request, issuer: OAuthIssuer) async throws -> (OAuthClientRecord, AuthorizationRequest) {
        let query = try OAuthForm(encoded: request.uri.query ?? "")
        if query["request_uri"] != nil { return try await pushedRequest(query, issuer: issuer) }
        let (client, authorization) = try await AuthorizationRequest.parse(query, issuer: issuer, store: provider.store)
        guard !client.requirePushedAuthorizationRequests else {
            throw AuthorizationRequest.Failure.redirect(
                OAuthError.invalidRequest("This client must push its authorization requests (PAR, RFC 9126)"),
                to: authorization.redirectURI, state: authorization.state)
        }
        return (client, authorization)
    }

    /// The session decides: reuse it, ask for consent, or show the sign-in page.
    private func decide(
        _ authorization: AuthorizationRequest, client: OAuthClientRecord, flow: AuthorizationFlow, cookies: String?
    ) async throws -> Response {
        let sessions = provider.engine(for: flow.issuer).sessions
        var signIn = try await sessions.current(cookieHeader: cookies)?.signIn
        if let current = signIn,
            try await !isUsable(current, for: authorization, applicationID: flow.issuer.application.id)
        {
            signIn = nil
        }
        if authorization.prompt.contains("none") {
            // OpenID Connect Core §3.1.2.6: never show a page.
            guard let signIn else {
                return Self.seeOther(
                    flow.errorRedirect(
                        OAuthError(code: .loginRequired, "No one is signed in"), to: authorization.redirectURI,
                        state: authorization.state))
            }
            guard case .redirect(let location) = try await flow.complete(authorization, client: client, signIn: signIn)
            else {
                return Self.seeOther(
                    flow.errorRedirect(
                        OAuthError(code: .consentRequired, "The user has not consented to these scopes"),
                        to: authorization.redirectURI, state: authorization.state))
            }
            return Self.seeOther(location)
        }
        if let signIn,
            case .redirect(let location) = try await flow.complete(
                authorization, client: client, signIn: signIn)
        {
            return Self.seeOther(location)
        }
        let view: HostedPages.View =
            signIn != nil
            ? .consent
            : (authorization.prompt.contains("create") && flow.issuer.application.signup == .enabled
                ? .createAccount : .signIn)
        let interaction = try await flow.grants.create(
            .interaction, Interaction(request: authorization, signIn: signIn), lifetime: Interaction.lifetime,
            subject: signIn?.userID)
        return HostedPages.page(
            issuer: flow.issuer, interaction: interaction, view: view, request: authorization, client: client)
    }

    /// Whether the session's sign-in may answer this request: not when the request asks for a
    /// new sign-in (`prompt=login`, `prompt=create`), when it is older than `max_age`, or when
    /// `login_hint` names someone else.
    private func isUsable(_ signIn: SignIn, for authorization: AuthorizationRequest, applicationID: UUID)
        async throws -> Bool
    {
        if authorization.prompt.contains("login") || authorization.prompt.contains("create") { return false }
        if let maxAge = authorization.maxAge,
            Int(provider.now().timeIntervalSince1970) - signIn.authTime > maxAge
        {
            return false
        }
        if let hint = authorization.loginHint, !hint.utf8.elementsEqual(signIn.userID.utf8) {
            let profile = try await provider.store.userProfile(applicationID: applicationID, userID: signIn.userID)
            guard let email = profile?.email, email.lowercased() == hint.lowercased() else { return false }
        }
        return true
    }

    /// 303: the browser follows with a GET.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
