import Foundation
import Hummingbird
import Prometheus

/// Counts requests and measures their duration by method, route and status, into the
/// registry `/metrics` exposes. Routes are the router's patterns, never raw paths, so user
/// ids do not become label values.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let registry: PrometheusCollectorRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let route = context.endpointPath ?? "unmatched"
        let labels = [("method", request.method.rawValue), ("route", route), ("status", String(response.status.code))]
        registry.makeCounter(name: "umfa_http_requests_total", labels: labels).increment()
        let elapsed = ContinuousClock.now - start
        registry.makeDurationHistogram(
            name: "umfa_http_request_duration_seconds", labels: [("route", route)],
            buckets: [
                .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500),
                .seconds(2),
            ]
        ).recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        return response
    }
}
