import Foundation
import UMFAContract

/// The decisions of the userinfo endpoint (OpenID Connect Core §5.3), without HTTP: the access
/// token must be the issuer's, valid, unrevoked, for a user (client_credentials tokens have no
/// `auth_time`), proven with DPoP when bound, and granted `openid`; the answer is the user's
/// claims for the token's scopes (§5.4).
struct UserinfoService: Sendable {
    /// The check of the access token at the endpoint's URL.
    let resource: ProtectedResource
    let userProfiles: UserProfileService

    /// A token valid for a user but not granted `openid` (RFC 6750 §3.1 `insufficient_scope`).
    struct InsufficientScope: Error, Sendable {}

    /// The claims for the token `presented` carries.
    /// - Throws: ``ProtectedResource/Refusal`` for a refused token, ``InsufficientScope``.
    func claims(of presented: ProtectedResource.Presented) async throws -> UserinfoResponse {
        let claims = try await resource.claims(of: presented) { $0.authTime != nil }
        let scopes = claims.scope.split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { throw InsufficientScope() }
        // The token's `sub` is the one its client sees (pairwise or not); its user is `user`.
        var answer = try await userProfiles.claims(
            applicationID: resource.issuer.application.id, userID: claims.user, scopes: scopes)
        answer.sub = claims.sub
        return answer
    }
}
