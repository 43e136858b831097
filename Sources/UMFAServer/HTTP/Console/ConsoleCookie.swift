import HTTPTypes
import Hummingbird

/// The console session at the HTTP edge (docs/contract.md §8): the cookie that carries its value,
/// `HttpOnly`, `SameSite=Strict`, `Secure` on https; and the `X-CSRF-Token` header the page
/// sends with every admin call. Read here, passed to ``ConsoleSessions`` as plain values.
enum ConsoleCookie {
    static let name = "umfa_console"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token") ?? .authorization

    /// The session cookie's value in `request`.
    static func value(in request: Request) -> String? {
        SSOSessions.cookie(name, in: request.headers[.cookie])
    }

    /// The `X-CSRF-Token` header of `request`.
    static func csrfToken(in request: Request) -> String? {
        request.headers[csrfHeader]
    }

    /// The `Set-Cookie` value for a session (or, with `nil`, one that removes the cookie);
    /// `Secure` when the server's public URL is https.
    static func setCookie(_ session: ConsoleSessions.Current?, publicURL: String) -> String {
        var cookie =
            "\(name)=\(session?.value ?? ""); Path=/; Max-Age=\(session == nil ? 0 : Int(ConsoleSessions.lifetime)); "
            + "HttpOnly; SameSite=Strict"
        if publicURL.hasPrefix("https:") { cookie += "; Secure" }
        return cookie
    }
}
