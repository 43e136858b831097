import Foundation
import UMFAStorage
import UMFATokens

/// Decides whether a registration may start, by the application's enrollment policy
/// (DESIGN.md §2), and consumes the enrollment token that grants it.
struct EnrollmentGrant {
    let services: ServerServices
    let application: ApplicationRecord

    /// The most a login token may be old to add a device under the `open` policy.
    static let loginTokenMaximumAge: TimeInterval = 300

    /// - Returns: the `userpw_time` the granting enrollment token carried, if any.
    func authorize(userID: String, hasCredentials: Bool, enrollmentToken: String?, loginToken: String?) async throws
        -> Date?
    {
        if let enrollmentToken {
            guard
                let grant = try await services.store.consumeEnrollmentToken(
                    hash: Secrets.hash(enrollmentToken), applicationID: application.id, userID: userID),
                grant.expiresAt > services.now()
            else {
                throw ServiceError.unauthenticated(
                    "The enrollment token is invalid, expired or already used")
            }
            return grant.userpwTime
        }
        switch application.enrollmentPolicy {
        case .grant:
            throw ServiceError.forbidden(
                "This application requires an enrollment token from its backend to register a device")
        case .open where !hasCredentials:
            return nil
        case .open:
            guard let loginToken else {
                throw ServiceError.forbidden(
                    "Adding another device needs an enrollment token or a recent login token")
            }
            let now = services.now()
            do {
                let claims = try await services.tokens.validate(
                    loginToken, applicationID: application.id, userID: userID, now: now)
                guard let issuedAt = claims?.iat,
                    now.timeIntervalSince1970 - Double(issuedAt) <= Self.loginTokenMaximumAge
                else {
                    throw ServiceError.forbidden("The login token is older than 5 minutes; sign in again")
                }
            } catch let failure as TokenValidationFailure {
                throw ServiceError.unauthenticated(failure.message)
            }
            return nil
        }
    }
}
