import Foundation
import Hummingbird
import UMFAEncoding
import UMFAStorage

/// The hosted passkey pages of every issuer (`Sources/UMFAServer/Resources/Hosted`): one page
/// whose view the server picks (sign in, create an account, consent), an error page for
/// requests that cannot be sent back to a client, (their static files are in ``StaticFiles``).
/// Same footing as the demo page: embedded files, strict CSP, no inline code, no framing.
enum HostedPages {
    static let pageTemplate = String(decoding: PackageResources.hosted_html, as: UTF8.self)
    static let errorTemplate = String(decoding: PackageResources.hosted_error_html, as: UTF8.self)

    /// The views of the page.
    enum View: String {
        case signIn = "sign-in"
        case createAccount = "create-account"
        case consent
    }

    /// The page for an interaction with `client`. Its consent view says when the client
    /// registered itself (RFC 7591) rather than being the application's own, and names the host
    /// the browser is sent back to (docs/oidc-provider.md, "Dynamic client registration"): a
    /// name alone is the client's own claim.
    /// `emailRecovery`: whether the sign-in view offers "Lost your passkey?" (recovery by email).
    static func page(
        issuer: OAuthIssuer, interaction: String, view: View, request: AuthorizationRequest,
        client: OAuthClientRecord, emailRecovery: Bool = false
    ) -> Response {
        let path = URLComponents(string: issuer.issuer)?.path ?? ""
        let html = fill(
            pageTemplate,
            [
                "issuer_path": path, "interaction": interaction, "view": view.rawValue,
                "login_hint": request.loginHint ?? "", "signup": issuer.application.signup.rawValue,
                "client_name": client.name, "scopes": request.scopes.joined(separator: " "),
                "authorization_details": request.authorizationDetails?.canonicalText ?? "",
                "application_name": issuer.application.name,
                "self_registered": client.isSelfRegistered ? "true" : "false",
                "redirect_host": redirectHost(request.redirectURI),
                "email_recovery": emailRecovery ? "on" : "off",
            ])
        return DemoPageRoutes.response(
            Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
    }

    /// Where a redirect URI sends the browser, as a person can check it: the host (and a port
    /// that is not the scheme's own), or the scheme of a private-use URI (RFC 8252 §7.1).
    static func redirectHost(_ uri: String) -> String {
        guard let url = URLComponents(string: uri) else { return uri }
        if let host = url.host, !host.isEmpty { return url.port.map { "\(host):\($0)" } ?? host }
        return url.scheme ?? uri
    }

    /// The error page: nothing can be redirected, so the person reads what went wrong.
    static func error(title: String, message: String, traceID: String, status: HTTPResponse.Status = .badRequest)
        -> Response
    {
        let html = fill(errorTemplate, ["title": title, "message": message, "trace_id": traceID])
        var response = DemoPageRoutes.response(
            Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        response.status = status
        return response
    }

    /// Replaces each `{{name}}` of the template with its HTML-escaped value, in one pass, so a
    /// value that itself contains `{{…}}` stays text.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var html = ""
        var rest = template[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            html += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound])
            html += values[name].map(escape) ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return html + rest
    }

    /// Escapes text for HTML content and quoted attribute values, by byte (``HTMLText``): a `"`
    /// followed by a combining mark is one Swift `Character` but still ends an attribute in the
    /// browser (docs/contract.md §4, "Text meets HTML, protocols and logs").
    static func escape(_ text: String) -> String {
        HTMLText.escape(text)
    }
}
