import Foundation
import Hummingbird
import Prometheus

/// `/.well-known/jwks.json`, `/health`, `/metrics`, `/openapi.yaml` and `/`.
struct PublicRoutes {
    let services: ServerServices
    let metrics: PrometheusCollectorRegistry

    func jwks(_ request: Request, context: some RequestContext) async throws -> Response {
        var response = try JSONExchange.response(try await services.tokens.jwks())
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    func health(_ request: Request, context: some RequestContext) async throws -> Response {
        try JSONExchange.response(["status": "ok", "trace_id": TraceID.from(request)])
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
            body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
    }

    func home(_ request: Request, context: some RequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: HomePage.html)))
    }
}

/// The landing page until the passkey demo page arrives.
enum HomePage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>UMFA authenticator server</title></head>
        <body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem">
        <h1>UMFA authenticator server</h1>
        <p>This server speaks the UMFA HTTP API v1.</p>
        <ul><li><a href="/openapi.yaml">API description (OpenAPI)</a></li>
        <li><a href="/.well-known/jwks.json">Token signing keys (JWKS)</a></li>
        <li><a href="/health">Health</a></li></ul>
        </body></html>
        """
}
