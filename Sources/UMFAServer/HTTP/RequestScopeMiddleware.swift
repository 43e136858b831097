import Foundation
import Hummingbird

/// Binds what a request is judged by before any route runs: its client address (for the abuse
/// limits) and how long its body may take to arrive.
struct RequestScopeMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext
    let trustForwardedFor: Bool
    let bodyReadTimeout: TimeInterval

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let address = ClientAddress.of(request, peer: context.remoteAddress, trustForwardedFor: trustForwardedFor)
        return try await ClientAddress.$current.withValue(address) {
            try await JSONExchange.$bodyReadTimeout.withValue(bodyReadTimeout) { try await next(request, context) }
        }
    }
}
