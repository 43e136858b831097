import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import X509

/// What every route needs: storage, the token service, the server secret and the clock.
struct ServerServices: Sendable {
    let store: any UMFAStore
    let tokens: TokenService
    /// Secret for values that must be stable but unguessable (pseudo credential ids).
    let serverSecret: [UInt8]
    /// Seals what must be stored readable by the server only, one purpose each; the master key
    /// itself is no service's to hold.
    let sealed: SealedSecrets
    /// The admin token, as only its checks need it.
    let adminToken: AdminToken
    /// How long a challenge is accepted.
    let challengeLifetime: TimeInterval
    let now: @Sendable () -> Date
    let logger: Logger
    /// The abuse limits every verification and credential check goes through.
    let abuse: AbuseGuard
    /// The attestation roots and FIDO metadata registrations are judged against.
    var attestationAnchors = AttestationTrustAnchors.wellKnown()
    /// Push services for approvals (``ServerConfiguration/approvalDispatchers``).
    var approvalDispatchers: [any ApprovalDispatcher] = []
    /// The server's public URL (`UMFA_PUBLIC_URL`): the base of every issuer URL.
    var publicURL = "http://localhost:8080"
    /// Ceremony, grant, signing, webhook and store metrics for `/metrics`.
    let metrics: ServerMetrics
    /// validate-token's short memory of API keys and credentials (``ValidationCache``).
    let validationCache: ValidationCache
    /// The CAs a `tls_client_auth` client's certificate must chain to (RFC 8705 §2.1).
    var mutualTLSAnchors: [Certificate] = []
    /// The base URL of the mutual-TLS endpoint alias listener (RFC 8705 §5), for discovery's
    /// `mtls_endpoint_aliases`; `nil` without that listener.
    var mutualTLSAliasURL: String?

    /// The audit log (docs/contract.md §8).
    var audit: AuditLog { AuditLog(services: self) }

    /// Looks an application up for a device-facing route; unknown ids are a 400 there, since
    /// 404 is reserved for the API-key and admin routes.
    func application(_ text: String) async throws -> ApplicationRecord {
        guard let id = UUID(uuidString: text) else { throw ServiceError.invalid("application_id must be a UUID") }
        guard let application = try await store.application(id: id) else {
            throw ServiceError.invalid("Unknown application_id")
        }
        return application
    }

    /// Checks a `user_id` by the one rule below, which `login_hint` shares (``LoginHint``).
    func checkUserID(_ userID: String) throws { try Self.checkUserID(userID) }

    /// Checks a `user_id`: 1 to 256 bytes of UTF-8 (docs/contract.md §4: lengths are bytes, since one
    /// character can carry thousands of combining marks).
    static func checkUserID(_ userID: String) throws {
        guard (1...256).contains(userID.byteCount) else {
            throw ServiceError.invalid("user_id must be 1 to 256 bytes of UTF-8")
        }
        try Self.refuseNUL(userID, field: "user_id")
    }

    /// Refuses U+0000 in a value that is stored: PostgreSQL text cannot hold it and SQLite
    /// would, so both engines refuse it here alike (400, never a database error).
    static func refuseNUL(_ value: String, field: String) throws {
        guard !value.utf8.contains(0) else { throw ServiceError.invalid("\(field) must not contain U+0000") }
    }

    /// Checks an optional name against its limit in UTF-8 bytes (`display_name` 256,
    /// `device_name` 128).
    func checkName(_ name: String?, field: String, maximumBytes: Int) throws {
        guard let name else { return }
        guard name.byteCount <= maximumBytes else {
            throw ServiceError.invalid("\(field) must be at most \(maximumBytes) bytes of UTF-8")
        }
        try Self.refuseNUL(name, field: field)
    }
}
