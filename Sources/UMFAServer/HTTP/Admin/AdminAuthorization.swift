import Hummingbird
import UMFAWebAuthn

/// The admin token check, as middleware on the admin route group: a console session (cookie
/// and `X-CSRF-Token`) stands for the token; otherwise a wrong or missing token is
/// 401 and counts against the caller's address, and 429 once that address keeps guessing.
/// A body is read (413 past the limit, 408 when slow, its trace id settled) before the token is
/// checked, but judged only after: a caller without the token learns nothing from how it is read.
struct AdminAuthorization: RouterMiddleware {
    typealias Context = UMFARequestContext
    /// The console's sessions, which stand for the token.
    let consoleSessions: ConsoleSessions
    /// The admin token's check.
    let check: AdminTokenCheck

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if request.method == .post || request.method == .patch {
            context.readBody = try await JSONExchange.read(request, context: context)
        }
        let bearer = BearerToken.from(request)
        // The console's operators: a session cookie with its CSRF token, and no bearer at all.
        if bearer == nil,
            try await consoleSessions.authorized(
                cookie: ConsoleCookie.value(in: request), csrfToken: ConsoleCookie.csrfToken(in: request)) != nil
        {
            return try await next(request, context)
        }
        try await check.authorize(Caller(traceID: "", clientAddress: context.clientAddress, bearer: bearer))
        return try await next(request, context)
    }
}
