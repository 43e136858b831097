import Foundation
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// The user a self-service request speaks for (docs/contract.md §8): the application and user of a valid
/// login token at most ``freshness`` old, sent as `Authorization: Bearer`. Every self-service
/// operation is scoped to them.
struct SignedInUser: Sendable {
    let application: ApplicationRecord
    let userID: String
    /// The login token's claims, when a login token (not an access token) speaks for the user.
    var loginToken: LoginTokenClaims? = nil

    /// How old a login token may be for self-service.
    static let freshness: TimeInterval = 300

    /// The signed-in user of `caller`, whose login token `loginTokens` accepts.
    static func from(
        _ caller: Caller, loginTokens: LoginTokens, applications: any ApplicationStore
    ) async throws -> SignedInUser {
        guard let token = caller.bearer else {
            throw ServiceError.unauthenticated("Sign in first: send Authorization: Bearer <login token>")
        }
        let refused = ServiceError.unauthenticated("The login token was refused; sign in again")
        // The token names its application and user; the full check below proves it.
        guard let named = unverifiedClaims(token), let id = UUID(uuidString: named.applicationID),
            let application = try await applications.application(id: id)
        else { throw refused }
        let claims: LoginTokenClaims?
        do {
            claims = try await loginTokens.validate(
                token, application: application, userID: named.userID)
        } catch is TokenValidationFailure {
            throw refused
        }
        guard let claims else { throw refused }
        guard Double(claims.iat) >= loginTokens.now().timeIntervalSince1970 - freshness else {
            throw ServiceError.unauthenticated(
                "Sign in again: self-service needs a login token at most \(Int(freshness)) seconds old")
        }
        return SignedInUser(application: application, userID: claims.userID, loginToken: claims)
    }

    private struct Named: Decodable {
        let applicationID: String
        let userID: String

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
        }
    }

    private static func unverifiedClaims(_ token: String) -> Named? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONDecoder().decode(Named.self, from: Data(payload))
    }
}
