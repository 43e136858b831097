import Foundation
import Hummingbird
import Prometheus
import UMFATokens
import UMFAWebAuthn

/// `/.well-known/jwks.json`, `/health`, `/metrics` and `/openapi.yaml`; `/` is the ``DemoPageRoutes``.
struct PublicRoutes {
    let tokens: TokenService
    let abuse: AbuseGuard
    let metrics: PrometheusCollectorRegistry
    /// SHA-256 of `UMFA_METRICS_TOKEN`; `nil` serves `/metrics` only to callers on this machine.
    var metricsTokenHash: [UInt8]? = nil

    func jwks(_ request: Request, context: some RequestContext) async throws -> Response {
        var response = try JSONExchange.response(try await tokens.jwks())
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    func prometheus(_ request: Request, context: UMFARequestContext) async throws -> Response {
        try await authorizeMetrics(request, context: context)
        var buffer: [UInt8] = []
        metrics.emit(into: &buffer)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }

    /// With a metrics token: the request must carry it (`Authorization: Bearer`), else 401;
    /// wrong guesses count like wrong admin tokens. Without one: only a caller on this machine
    /// (``ClientAddress/isLocal(_:peer:)``) is served, anyone else gets 403.
    func authorizeMetrics(_ request: Request, context: UMFARequestContext) async throws {
        guard let expected = metricsTokenHash else {
            guard ClientAddress.isLocal(request, peer: context.remoteAddress) else {
                throw ServiceError.forbidden(
                    "/metrics answers only callers on this machine unless UMFA_METRICS_TOKEN is set")
            }
            return
        }
        let caller = Caller(traceID: "", clientAddress: context.clientAddress, bearer: BearerToken.from(request))
        guard let token = caller.bearer, constantTimeEqual(Secrets.hash(token), expected) else {
            try await abuse.refuseCredential(
                caller, counting: caller.bearer != nil, ServiceError.unauthenticated("Missing or invalid metrics token")
            )
        }
    }

    func openAPI(_ request: Request, context: some RequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
    }
}
