import HTTPTypes
import Hummingbird
import Tracing

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
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsReader())
        let method = request.method.rawValue
        return try await withSpan(method, context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = method
            func finish(status: Int) {
                if let route = context.endpointPath.map(ServerTracing.routeTemplate) {
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

/// Reads the Trace Context headers of a request.
struct HTTPFieldsReader: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
