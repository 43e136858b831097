import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// `POST /api/admin/applications/{id}/initial-access-tokens`: a token that lets clients register
/// themselves at the application's registration endpoint (RFC 7591 §3), good for `uses`
/// registrations within `ttl_seconds`, for the scopes `scope` lists (else the application's
/// `allowed_scopes`); shown once, stored as SHA-256.
struct InitialAccessTokenService: Sendable {
    let store: any ApplicationStore & InitialAccessTokenStore
    let audit: AuditLog
    let now: @Sendable () -> Date

    static let ttl = 60...2_592_000
    static let uses = 1...1_000

    func create(_ request: InitialAccessTokenRequest, values: RequestValues, caller: Caller) async throws
        -> InitialAccessTokenResponse
    {
        let application = try await store.administeredApplication(values.path("id"))
        let ttl = request.ttlSeconds ?? 86_400
        let uses = request.uses ?? 1
        guard Self.ttl.contains(ttl) else { throw ServiceError.invalid("ttl_seconds must be 60 to 2592000") }
        guard Self.uses.contains(uses) else { throw ServiceError.invalid("uses must be 1 to 1000") }
        let scopes = try request.scope.map(OAuthClientSettings.scopes)
        let token = Secrets.make(prefix: ClientRegistrationService.initialAccessTokenPrefix)
        let now = self.now()
        let expiresAt = now.addingTimeInterval(TimeInterval(ttl))
        try await store.insertInitialAccessToken(
            InitialAccessTokenRecord(
                tokenHash: Secrets.hash(token), applicationID: application.id, usesLeft: uses, expiresAt: expiresAt,
                createdAt: now, scopes: scopes))
        await audit.record(
            .initialAccessTokenCreated, application: application.id, actor: .admin, caller: caller,
            details: ["uses": .number(Double(uses)), "expires_at": .string(Timestamps.rfc3339(expiresAt))])
        return InitialAccessTokenResponse(
            traceID: caller.traceID, initialAccessToken: token, expiresAt: Timestamps.rfc3339(expiresAt), uses: uses)
    }
}
