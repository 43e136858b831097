import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Enrollment tokens: one-time grants the application's backend asks for (API key) after its
/// own login of a user, to register a device under the `grant` policy.
struct EnrollmentTokenService: Sendable {
    let apiKeys: APIKeyAuthentication
    let store: any CeremonyStore
    let now: @Sendable () -> Date

    static let defaultLifetime = 600
    static let maximumLifetime = 86_400

    /// Issues a token for `request.userID`, stored only as its hash.
    func create(_ request: EnrollmentTokenRequest, caller: Caller) async throws -> EnrollmentTokenResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        try FieldRules.checkUserID(request.userID)
        let lifetime = request.ttlSeconds ?? Self.defaultLifetime
        guard (1...Self.maximumLifetime).contains(lifetime) else {
            throw ServiceError.invalid("ttl_seconds must be 1 to \(Self.maximumLifetime)")
        }
        var userpwTime: Date?
        if let text = request.userpwTime {
            guard let parsed = Timestamps.parse(text) else {
                throw ServiceError.invalid("userpw_time must be an RFC 3339 time")
            }
            userpwTime = parsed
        }
        return try await issue(
            applicationID: application.id, userID: request.userID, lifetime: lifetime, userpwTime: userpwTime,
            caller: caller)
    }

    /// A new token for a user whose right to one the caller has checked (the backend's API key,
    /// a recovery code), shown once and stored as its hash.
    func issue(
        applicationID: UUID, userID: String, lifetime: Int = defaultLifetime, userpwTime: Date? = nil, caller: Caller
    ) async throws -> EnrollmentTokenResponse {
        let token = Secrets.make(prefix: "umfa_et_")
        let expiresAt = now().addingTimeInterval(TimeInterval(lifetime))
        try await store.insertEnrollmentToken(
            EnrollmentTokenRecord(
                tokenHash: Secrets.hash(token), applicationID: applicationID, userID: userID,
                userpwTime: userpwTime, expiresAt: expiresAt))
        return EnrollmentTokenResponse(
            traceID: caller.traceID, enrollmentToken: token, expiresAt: Timestamps.rfc3339(expiresAt))
    }
}
