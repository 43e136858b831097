import Foundation
import Hummingbird
import UMFAContract

/// The HTTP edge of recovery by email (``EmailRecovery``), under an issuer resolved by
/// ``IssuerResolution``: the page a link opens (its JSON routes are ``OperationRoute/issuerJSON(_:)``
/// handlers), and the account page (``accountPage()``). Answers are never cached.
struct RecoveryRoutes: Sendable {
    let recovery: EmailRecovery

    static let pageTemplate = String(decoding: PackageResources.hosted_recovery_html, as: UTF8.self)

    static let accountTemplate = String(decoding: PackageResources.hosted_account_html, as: UTF8.self)

    /// `GET <issuer>/account`: the account page, the same for everyone; what it shows comes
    /// after its passkey sign-in, from the self-service routes.
    static func accountPage() -> RouteHandler {
        { _, context in
            let issuer = try context.resolvedIssuer()
            let html = HostedPages.fill(
                accountTemplate,
                [
                    "application_id": issuer.application.id.uuidString.lowercased(),
                    "application_name": issuer.application.name,
                ])
            return DemoPageRoutes.response(
                Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        }
    }

    /// `GET <issuer>/recovery/{token}`: the page, for a live link only; it spends nothing.
    func page() -> RouteHandler {
        { [recovery] request, context in
            let issuer = try context.resolvedIssuer()
            let traceID = TraceID.from(request, context: context)
            let token = RequestValues(request: request, context: context).path("token") ?? ""
            guard try await recovery.user(of: token, issuer: issuer) != nil else {
                return HostedPages.error(
                    title: "This link does not work", message: EmailRecovery.spent + ".", traceID: traceID,
                    status: .notFound)
            }
            let html = HostedPages.fill(
                Self.pageTemplate,
                [
                    "issuer_path": URLComponents(string: issuer.issuer)?.path ?? "", "token": token,
                    "application_name": issuer.application.name,
                ])
            return DemoPageRoutes.response(
                Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        }
    }
}
