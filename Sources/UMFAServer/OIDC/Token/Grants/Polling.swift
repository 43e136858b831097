import Foundation
import UMFAStorage

/// A request a client polls the token endpoint for while a person decides: a device
/// authorization (RFC 8628 §3.5) or a CIBA request (OpenID CIBA Core 1.0 §11).
protocol PolledRequest: Codable, Sendable {
    /// Seconds the client must wait between polls; grows with each `slow_down`.
    var interval: Int { get set }
    /// The last poll, seconds since 1970.
    var lastPoll: Int? { get set }
}

extension OAuthGrants {
    /// A poll before the person decided: `slow_down` and a longer interval for a poll sooner
    /// than the interval (a second's tolerance: a client polling at the interval may arrive a
    /// little early), else `authorization_pending`; the poll's time is kept for the next one.
    func pending<Request: PolledRequest>(
        _ kind: OAuthGrantKind, _ request: Found<Request>, handleHash: [UInt8], waitingFor: String
    ) async throws -> OAuthError {
        var state = request.payload
        let now = Int(self.now().timeIntervalSince1970)
        let early = state.lastPoll.map { now - $0 < state.interval - 1 } ?? false
        if early { state.interval += DeviceAuthorization.slowDownStep }
        state.lastPoll = now
        _ = try await update(
            kind, handleHash: handleHash, state, subject: request.record.subject, expiresAt: request.record.expiresAt)
        return early
            ? OAuthError(code: .slowDown, "Poll at most every \(state.interval) seconds")
            : OAuthError(code: .authorizationPending, waitingFor)
    }

    /// Why a polled request is not live: expired (`expired_token`), else spent or unknown
    /// (`invalid_grant`).
    func spentOrExpired(_ kind: OAuthGrantKind, handleHash: [UInt8], handle: String) async throws -> OAuthError {
        let record = try await store.oauthGrant(
            kind: kind, handleHash: handleHash, applicationID: issuer.application.id)
        if let record, record.consumedAt == nil {
            return OAuthError(code: .expiredToken, "The \(handle) expired; start again")
        }
        return OAuthError(code: .invalidGrant, "The \(handle) is invalid or was used")
    }
}
