import Foundation
import Hummingbird
import UMFAContract

/// The console's routes: the page and its files (`GET /admin…`) and the session ceremonies
/// (`/admin/session…`), whose answers set or clear the session cookie. The cookie and the CSRF
/// header are read and written here (``ConsoleCookie``); the services get their values.
struct ConsoleRoutes: Sendable {
    let console: ConsoleService
    let administration: ConsoleAdminService
    /// The server's public URL: the cookie's `Secure` attribute follows its scheme.
    let publicURL: String

    /// `GET /admin`: the page. It shows the sign-in controls until the script finds a session.
    func page(_ request: Request, context: UMFARequestContext) async throws -> Response {
        try ConsoleAssets.page(request)
    }

    var enrollOptions: RouteHandler { RouteHandlers.json(console.enrollOptions) }

    var enroll: RouteHandler {
        withCookie { (body: ConsoleEnrollRequest, caller) in try await console.enroll(body, caller: caller) }
    }

    var signInOptions: RouteHandler { RouteHandlers.plain { try await console.signInOptions(caller: $1) } }

    var signIn: RouteHandler {
        withCookie { (body: ConsoleSignInRequest, caller) in try await console.signIn(body, caller: caller) }
    }

    var session: RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            return try JSONExchange.response(
                try await console.current(cookie: ConsoleCookie.value(in: request), caller: caller))
        }
    }

    var signOut: RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            let answer = try await console.signOut(
                cookie: ConsoleCookie.value(in: request), csrfToken: ConsoleCookie.csrfToken(in: request),
                caller: caller)
            var response = try JSONExchange.response(answer)
            response.headers[.setCookie] = ConsoleCookie.setCookie(nil, publicURL: publicURL)
            return response
        }
    }

    /// `GET /api/admin/console/credentials`.
    var listCredentials: RouteHandler {
        RouteHandlers.plain { try await administration.credentials(caller: $1) }
    }

    /// `DELETE /api/admin/console/credentials/{credential_id}`.
    var deleteCredential: RouteHandler {
        RouteHandlers.plain {
            try await administration.deleteCredential(
                id: $0.path("credential_id"), caller: $1)
        }
    }

    /// `GET /api/admin/console/sessions`; the caller's own session, when it came with one, is marked.
    var listSessions: RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            let own = try await console.sessions.current(cookie: ConsoleCookie.value(in: request))
            return try JSONExchange.response(
                try await administration.sessions(
                    currentHash: own?.record.sessionHash, caller: caller))
        }
    }

    /// `DELETE /api/admin/console/sessions/{session_id}`.
    var deleteSession: RouteHandler {
        RouteHandlers.plain {
            try await administration.deleteSession(id: $0.path("session_id"), caller: $1)
        }
    }

    /// A JSON route whose answer starts a session.
    private func withCookie<Body: ContractBody>(
        _ call: @escaping @Sendable (Body, Caller) async throws -> ConsoleService.Signed
    ) -> RouteHandler {
        { request, context in
            let input = try await JSONExchange.body(of: request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            let signed = try await call(try input.decode(Body.self), caller)
            var response = try JSONExchange.response(signed.answer)
            response.headers[.setCookie] = ConsoleCookie.setCookie(signed.session, publicURL: publicURL)
            return response
        }
    }
}
