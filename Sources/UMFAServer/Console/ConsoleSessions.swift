import Foundation
import HTTPTypes
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// The console's sessions (DESIGN.md §8): a random cookie, `HttpOnly`, `SameSite=Strict`,
/// `Secure` on https, stored as SHA-256; and a CSRF token derived from it with the server
/// secret, which the page must send as `X-CSRF-Token` with every admin call it makes.
struct ConsoleSessions: Sendable {
    let services: ServerServices

    static let cookieName = "umfa_console"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token") ?? .authorization
    /// How long a session lasts (it does not extend itself).
    static let lifetime: TimeInterval = 8 * 3600

    /// A live session, with the cookie value it was found by.
    struct Current: Sendable {
        let value: String
        let record: ConsoleSessionRecord
    }

    /// Starts a session for the passkey; the new cookie value and record.
    func start(credentialID: [UInt8]) async throws -> Current {
        let value = Secrets.make(prefix: "umfa_cs_")
        let now = services.now()
        let record = ConsoleSessionRecord(
            sessionHash: Secrets.hash(value), credentialID: credentialID, createdAt: now,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        try await services.store.insertConsoleSession(record)
        return Current(value: value, record: record)
    }

    /// The live session the request's cookie names, of a passkey enrolled under the current
    /// admin token.
    func current(_ request: Request) async throws -> Current? {
        guard let value = SSOSessions.cookie(Self.cookieName, in: request.headers[.cookie]),
            let record = try await services.store.consoleSession(
                hash: Secrets.hash(value), at: services.now(), tokenEpoch: ConsoleTokenEpoch(services: services).current
            )
        else { return nil }
        return Current(value: value, record: record)
    }

    /// A session whose request also carries its CSRF token; `nil` otherwise.
    func authorized(_ request: Request) async throws -> Current? {
        guard let given = request.headers[Self.csrfHeader], let session = try await current(request),
            constantTimeEqual(Array(given.utf8), Array(csrfToken(for: session.value).utf8))
        else { return nil }
        return session
    }

    /// The CSRF token of a session cookie value.
    func csrfToken(for value: String) -> String {
        Base64URL.encode(Secrets.derive("umfa-console-csrf:" + value, key: services.serverSecret))
    }

    /// The `Set-Cookie` value for a session (or, with `nil`, one that removes the cookie).
    func setCookie(_ session: Current?) -> String {
        var cookie =
            "\(Self.cookieName)=\(session?.value ?? ""); Path=/; Max-Age=\(session == nil ? 0 : Int(Self.lifetime)); "
            + "HttpOnly; SameSite=Strict"
        if services.publicURL.hasPrefix("https:") { cookie += "; Secure" }
        return cookie
    }
}
