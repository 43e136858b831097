import HTTPTypes
import Hummingbird

/// `GET /.well-known/webauthn` over HTTP: the `Host` the request names goes to
/// ``RelatedOriginsService``, and its document is answered as `application/json`, the media type
/// browsers require of it (WebAuthn L3 §5.11.1), cacheable for five minutes.
struct RelatedOriginsRoutes: Sendable {
    let service: RelatedOriginsService

    /// HTTP/1.1's `Host` arrives as the request's authority; a `Host` field, as requests built
    /// in process may carry, is read first.
    static let hostField = HTTPField.Name("Host")

    var handler: RouteHandler {
        { request, _ in
            let host = Self.hostField.flatMap { request.headers[$0] } ?? request.head.authority ?? ""
            var response = try JSONExchange.response(try await service.document(host: host))
            response.headers[.contentType] = "application/json"
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
    }
}
