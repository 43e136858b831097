import Foundation
import Hummingbird
import UMFAStorage

/// `GET /` (the passkey demo page); its files are in ``StaticFiles``.
///
/// Everything the page needs comes from this server: no inline script or style and nothing
/// from another host, enforced by a strict `Content-Security-Policy`, so it works offline.
struct DemoPageRoutes {
    let store: any SettingStore
    /// Whether the page names the development application; without it the page asks for `?app=`.
    let demoRoutes: Bool

    /// Only this origin's own files; no inline code, no plugins, no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

    func home(_ request: Request, context: some RequestContext) async throws -> Response {
        var applicationID = ""
        if demoRoutes, let id = try await DevelopmentApplication.id(in: store) {
            applicationID = id.uuidString.lowercased()
        }
        let html = DemoAssets.indexHTML.replacingOccurrences(
            of: DemoAssets.applicationPlaceholder, with: applicationID)
        // The page names this server's development application, so it is never cached.
        return Self.response(Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
    }

    /// A static file with a strong validator: 304 when the browser has it already.
    static func serve(_ asset: DemoAsset?, request: Request) throws -> Response {
        guard let asset else {
            throw ServiceError.notFound("No such file")
        }
        var response: Response
        if let given = request.headers[.ifNoneMatch],
            given.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == asset.etag
            })
        {
            response = Self.response([], contentType: asset.contentType, cacheControl: "no-cache")
            response.status = .notModified
        } else {
            response = Self.response(asset.bytes, contentType: asset.contentType, cacheControl: "no-cache")
        }
        response.headers[.eTag] = asset.etag
        return response
    }

    static func response(_ bytes: [UInt8], contentType: String, cacheControl: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: cacheControl,
                .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
