import Foundation
import HTTPTypes
import Hummingbird

/// The console's page (its files are in ``StaticFiles``), embedded in the binary, served
/// under a policy stricter than the demo page's: nothing but this origin's own script, style and
/// calls; no forms posting anywhere, no framing, no referrer.
enum ConsoleAssets {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let pageHTML = DemoAsset(PackageResources.console_html, contentType: "text/html; charset=utf-8")

    /// `GET /admin`.
    static func page(_ request: Request) throws -> Response {
        hardened(try DemoPageRoutes.serve(pageHTML, request: request))
    }

    /// `response` under the console's policy: its files (``StaticFiles``) and its page.
    static func hardened(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        if let referrer = HTTPField.Name("Referrer-Policy") { response.headers[referrer] = "no-referrer" }
        if let framing = HTTPField.Name("X-Frame-Options") { response.headers[framing] = "DENY" }
        return response
    }
}
