import Hummingbird
import Logging
import UMFAContract

/// Renders the failures of a route group in the group's declared shape
/// (``APIOperation/ErrorShape``): RFC 6749 §5.2 for OAuth endpoints, RFC 9457 problems for the
/// API-driven flow. A refused access token answers with its `WWW-Authenticate` challenge in both.
/// UMFA's JSON shape (and the pages' fallback) is ``ErrorMiddleware`` at the router.
struct ErrorRendering: RouterMiddleware {
    typealias Context = UMFARequestContext
    let shape: APIOperation.ErrorShape
    /// The server's log, for failures that are the server's own.
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let traceID = context.trace.value ?? TraceID.from(request, context: context)
            return response(for: error, traceID: traceID, logger: context.logger)
        }
    }

    /// The answer to `error` in this shape.
    func response(for error: any Error, traceID: String, logger: Logger) -> Response {
        if let refusal = error as? ProtectedResource.Refusal, shape == .oauth || shape == .problem {
            return ProtectedResource.challenge(refusal, traceID: traceID, logger: self.logger)
        }
        switch shape {
        case .oauth: return ErrorMap.oauthResponse(for: error, traceID: traceID, logger: self.logger)
        case .problem: return ErrorMap.problemResponse(for: error, traceID: traceID, logger: self.logger)
        case .umfa, .page: return ErrorMap.response(for: error, traceID: traceID, logger: logger)
        }
    }
}
