import HTTPTypes
import Hummingbird
import Tracing
import UMFAStorage
import UMFATokens

/// A server span per request (docs/operators/tracing.md), continuing the caller's W3C
/// `traceparent`, with the HTTP semantic conventions: `http.request.method`, `http.route` as the
/// declared path template (`/v1/users/{user_id}/credentials`) and `http.response.status_code`.
/// The path and query themselves are not recorded: they may carry a user id or a one-time code.
/// Installed only when ``ServerTracing/isOn``.
struct RequestTracingMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // Only the two Trace Context headers reach the instrument, and only when well formed:
        // it logs what it cannot parse, and the request's other headers hold its credentials.
        var parent = ServiceContext.current ?? .topLevel
        if let carrier = ServerTracing.carrier(
            traceparent: request.headers[values: .traceparent], tracestate: request.headers[values: .tracestate])
        {
            InstrumentationSystem.instrument.extract(carrier, into: &parent, using: HeaderCarrier.Reader())
        }
        let method = request.method.rawValue
        return try await QuietSpan.run(method, context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = method
            func finish(status: Int) {
                // Hummingbird names an unmatched request's route "NotFound": no route, then.
                if let route = context.endpointPath.map(ServerTracing.routeTemplate), route != "NotFound" {
                    span.operationName = "\(method) \(route)"
                    span.attributes["http.route"] = route
                }
                span.attributes["http.response.status_code"] = status
                if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            }
            do {
                let response = try await next(request, context)
                finish(status: Int(response.status.code))
                return response
            } catch {
                finish(status: Int((error as? any HTTPResponseError)?.status.code ?? 500))
                throw error
            }
        }
    }
}

extension HTTPField.Name {
    /// W3C Trace Context §3.2.
    static var traceparent: HTTPField.Name { named("traceparent") }
    /// W3C Trace Context §3.3.
    static var tracestate: HTTPField.Name { named("tracestate") }
}
