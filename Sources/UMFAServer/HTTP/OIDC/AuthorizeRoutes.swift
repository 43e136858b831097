import Foundation
import Hummingbird

/// `GET <issuer>/authorize` (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2): parses the query,
/// lets ``AuthorizeService`` decide, and renders its outcome: a 303 back to the client, or the
/// hosted page in the view the request needs.
struct AuthorizeRoutes: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    func handle(_ request: Request, context: UMFARequestContext) async throws -> Response {
        let traceID = TraceID.from(request, context: context)
        let issuer = try context.resolvedIssuer()
        if APIFlowRoutes.wantsFlow(request) {
            return await APIFlowRoutes(provider: provider).start(request, context: context, issuer: issuer)
        }
        let authorize = provider.engine(for: issuer).authorize
        do {
            let (client, authorization) = try await authorize.resolve(Self.query(of: request))
            switch try await authorize.decide(authorization, client: client, cookieHeader: request.headers[.cookie]) {
            case .redirect(let location):
                return Self.seeOther(location)
            case .page(let view, let interaction):
                return HostedPages.page(
                    issuer: issuer, interaction: interaction, view: HostedPages.View(view), request: authorization,
                    client: client,
                    emailRecovery: provider.emailCodes.mailer.isOn && issuer.application.emailRecovery)
            }
        } catch let failure as AuthorizationRequest.Failure {
            switch failure {
            case .page(let title, let message, _):
                return HostedPages.error(title: title, message: message, traceID: traceID)
            case .redirect(let error, let redirectURI, let state):
                return Self.seeOther(authorize.flow.errorRedirect(error, to: redirectURI, state: state))
            }
        } catch let error as OAuthError {
            return HostedPages.error(
                title: "This sign-in link is not valid", message: error.description, traceID: traceID)
        }
    }

    /// The request's query as an OAuth form.
    static func query(of request: Request) throws -> OAuthForm {
        try OAuthForm(encoded: request.uri.query ?? "")
    }

    /// 303: the browser follows with a GET.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

extension HostedPages.View {
    /// The page of a view the authorization decided.
    init(_ view: AuthorizeService.View) {
        switch view {
        case .signIn: self = .signIn
        case .createAccount: self = .createAccount
        case .consent: self = .consent
        }
    }
}
