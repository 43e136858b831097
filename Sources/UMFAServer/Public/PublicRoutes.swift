import Foundation
import Hummingbird
import Prometheus

/// `/.well-known/jwks.json`, `/health`, `/metrics` and `/openapi.yaml`; `/` is the ``DemoPage``.
struct PublicRoutes {
    let services: ServerServices
    let metrics: PrometheusCollectorRegistry

    func jwks(_ request: Request, context: some RequestContext) async throws -> Response {
        var response = try JSONExchange.response(try await services.tokens.jwks())
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    func prometheus(_ request: Request, context: some RequestContext) async throws -> Response {
        var buffer: [UInt8] = []
        metrics.emit(into: &buffer)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }

    func openAPI(_ request: Request, context: some RequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
    }
}
