/// The one error type of UMFA's server-side domain code: a code that says what kind of failure
/// it is, a machine reason where one code covers failures a shape tells apart, the field the
/// failure concerns, and a message for the caller (never a secret). Services throw it and know
/// nothing of HTTP; ``ErrorMap`` is the one place that turns codes into statuses and the
/// documented shapes. Every shape decides its status and its `error` value from ``code`` and
/// ``reason`` only: a message is words for people, and changing it never changes an answer.
package struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it is.
    package enum Code: Sendable, Equatable {
        /// The request is malformed (400).
        case invalidRequest
        /// The caller did not prove who it is, or a proof failed (401).
        case unauthenticated
        /// Policy does not allow it (403).
        case forbidden
        /// An unknown resource, on API-key and admin routes (404).
        case notFound
        /// It conflicts with what is stored (409).
        case conflict
        /// The body did not arrive in time (408).
        case timeout
        /// The body is too large (413).
        case tooLarge
        /// The caller failed too often; try again after the given seconds (429).
        case rateLimited(retryAfterSeconds: Int)
        /// A dependency (the database) is unavailable (503).
        case unavailable
        /// A fault of the server; the message is generic, the details are logged (500).
        case internalFailure
    }

    /// Why, where the error shapes tell failures of one code apart.
    package enum Reason: String, Sendable, Equatable {
        /// The sign-in the request continues (a hosted page's interaction, an API-driven flow)
        /// expired, was used up, or is not the caller's: the flow's `session_expired` problem.
        case sessionExpired = "session_expired"
        /// A redirect URI (or post-logout redirect URI) is not one a client may register:
        /// RFC 7591 §3.2.2 `invalid_redirect_uri`.
        case redirectURI = "redirect_uri"
        /// A discoverable sign-in presented a credential id the application does not hold: the
        /// browser's own choice, so the page may tell its passkey manager to forget it (WebAuthn
        /// L3 §5.1.10, `signalUnknownCredential`). The one reason the error body names.
        case unknownCredential = "unknown_credential"

        /// Whether the error body names the reason (`reason`, docs/contract.md §2).
        package var isInErrorBody: Bool { self == .unknownCredential }
    }

    /// The kind of failure.
    package let code: Code
    /// Why, when a shape needs more than the code (``Reason``).
    package let reason: Reason?
    /// The request member the failure concerns (`email`, `redirect_uris`), as the wire names it.
    package let field: String?
    /// What the caller is told.
    package let message: String
    /// What only the server log is told, with the trace id: the reason behind a deliberately
    /// uniform message (a failed device-facing ceremony).
    package let detail: String?

    /// Creates an error.
    package init(
        _ code: Code, _ message: String, detail: String? = nil, reason: Reason? = nil, field: String? = nil
    ) {
        self.code = code
        self.message = message
        self.detail = detail
        self.reason = reason
        self.field = field
    }

    /// The message.
    package var description: String { message }

    /// 400: the request is malformed.
    package static func invalid(_ message: String, field: String? = nil, reason: Reason? = nil) -> ServiceError {
        ServiceError(.invalidRequest, message, reason: reason, field: field)
    }
    /// 401: unauthenticated or an invalid proof.
    package static func unauthenticated(_ message: String, detail: String? = nil, reason: Reason? = nil)
        -> ServiceError
    {
        ServiceError(.unauthenticated, message, detail: detail, reason: reason)
    }
    /// 403: not allowed by policy.
    package static func forbidden(_ message: String) -> ServiceError { ServiceError(.forbidden, message) }
    /// 404: unknown resource.
    package static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, message) }
    /// 409: conflict with what is stored.
    package static func conflict(_ message: String) -> ServiceError { ServiceError(.conflict, message) }
    /// 500 with the generic message.
    package static let internalFailure = ServiceError(.internalFailure, "Internal server error")
}
