import Hummingbird

/// HTTP Strict Transport Security (RFC 6797): every answer that leaves over one of UMFA's TLS
/// listeners carries `Strict-Transport-Security`, error answers included; an answer over plain
/// HTTP never does (RFC 6797 §7.2). The outermost middleware but the request span (docs/operators/tracing.md), so nothing answers around it.
struct StrictTransportSecurityMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext

    /// The policy to announce.
    let policy: StrictTransportSecurity

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // RFC 6797 §7.2: only over a secure transport; ``TLSHTTPChannel`` marks the connection.
        guard TLSConnection.current != nil else {
            return try await next(request, context)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // What Hummingbird would answer for an error no inner middleware rendered.
            response = try error.response(from: request, context: context)
        }
        // RFC 6797 §8.1: one header; a route's own value is replaced, not repeated.
        response.headers[.strictTransportSecurity] = policy.headerValue
        return response
    }
}
