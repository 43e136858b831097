import Foundation
import Hummingbird

/// The sign-out confirmation (OpenID Connect RP-Initiated Logout 1.0 §2): a form that POSTs
/// the person's answer back to the logout endpoint with a CSRF token, on the hosted pages'
/// footing (embedded page, strict CSP, no script, no framing).
extension HostedPages {
    static let logoutTemplate = String(decoding: PackageResources.hosted_logout_html, as: UTF8.self)

    /// The confirmation page; the hidden fields carry the request on to the POST.
    static func logoutConfirmation(
        issuer: OAuthIssuer, csrfToken: String, clientID: String?, postLogoutRedirectURI: String?, state: String?
    ) -> Response {
        let path = URLComponents(string: issuer.issuer)?.path ?? ""
        let html = fill(
            logoutTemplate,
            [
                "action": path + "/logout", "application_name": issuer.application.name, "csrf_token": csrfToken,
                "client_id": clientID ?? "", "post_logout_redirect_uri": postLogoutRedirectURI ?? "",
                "state": state ?? "",
            ])
        var response = DemoPageRoutes.response(
            Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        // CSP `form-action` also governs where the POST's answer redirects to (CSP 3 §6.3.1):
        // the registered post-logout URI's origin is allowed, and nothing else.
        if let source = postLogoutRedirectURI.flatMap(formActionSource) {
            response.headers[.contentSecurityPolicy] = DemoPageRoutes.contentSecurityPolicy.replacingOccurrences(
                of: "form-action 'self'", with: "form-action 'self' " + source)
        }
        return response
    }

    /// The CSP source that allows a redirect to `uri`: its origin for http and https, its scheme
    /// for an app's own scheme; `nil` for anything else, so no text from a client's registration
    /// reaches the header unless it is plainly a scheme, a host name and a port.
    static func formActionSource(_ uri: String) -> String? {
        func plain(_ text: String, _ extra: String) -> Bool {
            !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    $0.isASCII && (isAlphanumeric($0) || extra.unicodeScalars.contains($0))
                }
        }
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            plain(scheme, "+.-")
        else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let host = components.host, plain(host, ".-") else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
