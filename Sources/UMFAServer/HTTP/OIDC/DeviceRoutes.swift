import Foundation
import Hummingbird
import UMFAContract

/// The HTTP edge of the hosted device page (RFC 8628 §3.3): `GET <issuer>/device`, the same for
/// everyone; with `?user_code=` (`verification_uri_complete`) the code is filled in and shown as a
/// QR code of the page, so a person can go on with a phone. What the page shows next comes from
/// ``DeviceApproval`` through `/device/code` and `/device/decision`.
enum DeviceRoutes {
    static let template = String(decoding: PackageResources.hosted_device_html, as: UTF8.self)

    /// The page's handler.
    static func page() -> RouteHandler {
        { request, context in
            let issuer = try context.resolvedIssuer()
            let typed = RequestValues(request: request, context: context).query("user_code") ?? ""
            let code = UserCode.normalize(typed).map(UserCode.display)
            var qrCode = ""
            if let code {
                let link = issuer.issuer + "/device?user_code=" + code
                qrCode = try OutOfBandLinks.qrCode(link).dataUri
            }
            let html = HostedPages.fill(
                template,
                [
                    "application_id": issuer.application.id.uuidString.lowercased(),
                    "application_name": issuer.application.name,
                    "issuer_path": URLComponents(string: issuer.issuer)?.path ?? "", "user_code": code ?? "",
                    "qr_code": qrCode, "qr_hidden": qrCode.isEmpty ? "hidden" : "",
                ])
            return DemoPageRoutes.response(
                Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        }
    }
}
