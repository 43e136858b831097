import Hummingbird

/// Answers every error through ``ErrorMap`` with the request's trace id: the one the route
/// settled (from the body), else the `trace_id` query parameter, else a new one.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let traceID = context.trace.value ?? TraceID.from(request, context: context)
            return ErrorMap.response(for: error, traceID: traceID, logger: context.logger)
        }
    }
}
