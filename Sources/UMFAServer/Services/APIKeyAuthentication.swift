import Foundation
import UMFAStorage

/// Checks the API key a caller presents for the application a request names: the key must
/// belong to exactly that application, else 401, so one application's key can never read,
/// validate or change another's data. Wrong keys count against the client address's abuse limit;
/// valid ones are never refused by it.
struct APIKeyAuthentication {
    let store: any ApplicationStore
    let validationCache: ValidationCache
    let abuse: AbuseGuard

    static let missingKey = "Missing API key: send Authorization: Bearer <API key>"

    /// Refuses a caller without any API key before its body is judged, so a caller without a
    /// key learns nothing about the route.
    static func requireKey(_ caller: Caller) throws {
        guard caller.bearer != nil else { throw ServiceError.unauthenticated(missingKey) }
    }

    /// The application `text` names, when the caller's key belongs to it.
    func application(for caller: Caller, applicationID text: String?) async throws -> ApplicationRecord {
        guard let key = caller.bearer else { throw ServiceError.unauthenticated(Self.missingKey) }
        guard let text, !text.isEmpty else { throw ServiceError.invalid("application_id is required") }
        guard let applicationID = UUID(uuidString: text) else {
            throw ServiceError.invalid("application_id must be a UUID")
        }
        // One query at most: the key's application, which must be the one named.
        let hash = Secrets.hash(key)
        let owner = try await validationCache.application(forKeyHash: hash) {
            try await store.application(forAPIKeyHash: hash)
        }
        guard let owner, owner.id == applicationID else {
            // Only a key that exists nowhere is a guess; a real key naming another application is
            // not. A valid key is never refused for what others did at this address.
            try await abuse.refuseCredential(
                caller, counting: owner == nil,
                ServiceError.unauthenticated("The API key is not valid for this application"))
        }
        return owner
    }
}
