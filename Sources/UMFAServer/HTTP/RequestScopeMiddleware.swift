import Foundation
import Hummingbird

/// Sets what a request is judged by before any route runs: its client address (for the abuse
/// limits) and how long its body may take to arrive, on the request context.
struct RequestScopeMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext
    let trustForwardedFor: Bool
    let bodyReadTimeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.clientAddress = ClientAddress.of(
            request, peer: context.remoteAddress, trustForwardedFor: trustForwardedFor)
        context.bodyReadTimeout = bodyReadTimeout
        return try await next(request, context)
    }
}
