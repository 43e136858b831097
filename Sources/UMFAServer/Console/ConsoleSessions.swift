import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The console's sessions (docs/contract.md §8): a random value, kept by the browser as a cookie
/// (``ConsoleCookie``, at the HTTP edge) and stored as SHA-256; and a CSRF token derived from
/// it with the server secret, which the page must send as `X-CSRF-Token` with every admin call
/// it makes. The edge reads both from the request and passes them in as plain values.
struct ConsoleSessions: Sendable {
    let store: any ConsoleStore
    let epoch: ConsoleTokenEpoch
    /// The server secret CSRF tokens derive from.
    let serverSecret: [UInt8]
    let now: @Sendable () -> Date

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
        let now = self.now()
        let record = ConsoleSessionRecord(
            sessionHash: Secrets.hash(value), credentialID: credentialID, createdAt: now,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        try await store.insertConsoleSession(record)
        return Current(value: value, record: record)
    }

    /// The live session the session cookie's `value` names, of a passkey enrolled under the
    /// current admin token.
    func current(cookie value: String?) async throws -> Current? {
        guard let value,
            let record = try await store.consoleSession(
                hash: Secrets.hash(value), at: now(), tokenEpoch: epoch.current
            )
        else { return nil }
        return Current(value: value, record: record)
    }

    /// The session of the cookie `value` when `csrfToken` (the `X-CSRF-Token` header) is its
    /// CSRF token; `nil` otherwise.
    func authorized(cookie value: String?, csrfToken given: String?) async throws -> Current? {
        guard let given, let session = try await current(cookie: value),
            constantTimeEqual(Array(given.utf8), Array(csrfToken(for: session.value).utf8))
        else { return nil }
        return session
    }

    /// The CSRF token of a session cookie value.
    func csrfToken(for value: String) -> String {
        Base64URL.encode(Secrets.derive("umfa-console-csrf:" + value, key: serverSecret))
    }
}
