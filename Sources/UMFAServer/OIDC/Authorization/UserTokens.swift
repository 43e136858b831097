import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// The tokens a signed-in user's client gets from the `authorization_code` and `refresh_token`
/// grants: an access token (RFC 9068), an ID token when `openid` was granted (OpenID Connect
/// Core §2), and a rotating refresh token when the client may use that grant.
struct UserTokens: Sendable {
    let tokens: TokenService
    let grants: OAuthGrants
    let accessTokens: AccessTokens
    let signIns: SignInCredentials
    let userProfiles: UserProfileService
    /// The `sub` the client sees of the user (public or pairwise, OpenID Connect Core §8).
    let subjects: SubjectIdentifiers
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// What a refresh token stands for; each use replaces it with a new one of the same family.
    struct RefreshGrant: Codable, Sendable {
        var clientID: String
        var scopes: [String]
        var signIn: SignIn
        var family: String
        /// When the family started: refresh tokens never outlive the client's refresh TTL from here.
        var familyStarted: Int
        /// The DPoP key a public client's refresh tokens are bound to (RFC 9449 §5).
        var jkt: String? = nil
        /// The client certificate (`x5t#S256`) a public client's refresh tokens are bound to
        /// (RFC 8705 §4).
        var x5t: String? = nil
    }

    /// The claims of an ID token (OpenID Connect Core §2, §5.1 by scope).
    struct IDTokenClaims: Encodable {
        let iss: String
        let sub: String
        let aud: String
        let azp: String
        let exp: Int
        let iat: Int
        let authTime: Int
        let nonce: String?
        let acr: String
        let amr: [String]
        let atHash: String
        let sid: String
        let profile: UserinfoResponse

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, azp, exp, iat, nonce, acr, amr, sid
            case authTime = "auth_time"
            case atHash = "at_hash"
        }

        func encode(to encoder: any Encoder) throws {
            try profile.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(iss, forKey: .iss)
            try container.encode(sub, forKey: .sub)
            try container.encode(aud, forKey: .aud)
            try container.encode(azp, forKey: .azp)
            try container.encode(exp, forKey: .exp)
            try container.encode(iat, forKey: .iat)
            try container.encode(authTime, forKey: .authTime)
            try container.encodeIfPresent(nonce, forKey: .nonce)
            try container.encode(acr, forKey: .acr)
            try container.encode(amr, forKey: .amr)
            try container.encode(atHash, forKey: .atHash)
            try container.encode(sid, forKey: .sid)
        }
    }

    /// What a refresh's rotation (``OAuthGrants/rotate(_:_:successorPrefix:as:)``) stored and
    /// read already, so that issuing its tokens asks the store nothing more.
    struct Rotation: Sendable {
        /// The successor refresh token, stored as a copy of the one it replaces; `nil` when none
        /// was stored.
        var successor: String?
        /// The replaced grant as it was stored: the successor has its expiry and passkey.
        var replaced: OAuthGrantRecord
        /// Whether the passkey of the sign-in is still registered to its user; `nil` when the
        /// rotation's read cannot tell (a grant stored without its passkey).
        var registered: Bool?
        /// The user's profile as read with the rotation (`.some(nil)`: none); `nil` when what was
        /// read is another user's.
        var profile: UserProfileRecord??

        /// What `rotated` read, for the grant's `signIn`.
        init<Payload>(_ rotated: OAuthGrants.Rotated<Payload>, signIn: SignIn) {
            successor = rotated.successor
            replaced = rotated.found.record
            // The read's passkey is the sign-in's only when the grant was stored with it
            // (``SignInCredentials/isRegistered(credentialID:userID:in:)`` decides otherwise).
            if let credentialID = signIn.credentialID, let bytes = Base64URL.decodeCanonical(credentialID),
                replaced.credentialID == bytes
            {
                registered = rotated.credentialOwner?.isSameBytes(as: signIn.userID) ?? false
            }
            if replaced.subject.isSameBytes(as: signIn.userID) { profile = .some(rotated.subjectProfile) }
        }
    }

    /// The token response for `signIn`, in `family`; `nonce` only from an authorization request.
    /// A new refresh token keeps `refreshScopes` (RFC 6749 §6: the scopes of the one it replaces)
    /// when a refresh narrowed `scopes`. A refresh passes its `rotation`: its successor is the
    /// new refresh token when it is the one this would store.
    func issue(
        to client: OAuthClientRecord, signIn: SignIn, scopes: [String], family: String, nonce: String?,
        familyStarted: Int? = nil, refreshScopes: [String]? = nil, jkt: String? = nil, refreshJKT: String? = nil,
        x5t: String? = nil, refreshX5T: String? = nil, rotation: Rotation? = nil
    ) async throws -> OAuthTokenResponse {
        // A code or refresh token of a passkey deleted since ends here, with its family.
        let registered: Bool
        if let known = rotation?.registered {
            registered = known
        } else {
            registered = try await signIns.isRegistered(signIn, in: issuer.application.id)
        }
        guard registered else {
            try await grants.revokeFamily(family)
            throw OAuthError(code: .invalidGrant, "The passkey that signed in was removed; sign in again")
        }
        // A new family (a code or device grant, not a refresh): a client that takes logout tokens
        // is recorded with the sign-in's session (Back-Channel Logout 1.0).
        if familyStarted == nil { try await signIns.backchannel.record(client, signIn: signIn) }
        let (accessToken, claims) =
            try await accessTokens
            .issue(
                to: client, subject: signIn.userID, scopes: scopes, audience: nil, signIn: signIn, family: family,
                jkt: jkt, x5t: x5t)
        var idToken: String?
        let algorithm = issuer.application.tokenSigningAlgorithm
        if scopes.contains("openid") {
            var profile: UserinfoResponse
            if let read = rotation?.profile {
                profile = UserProfileService.claims(of: read, userID: signIn.userID, scopes: scopes)
            } else {
                profile =
                    try await userProfiles
                    .claims(applicationID: issuer.application.id, userID: signIn.userID, scopes: scopes)
            }
            profile.sub = subjects.subject(of: signIn.userID, for: client)
            idToken = try await tokens.sign(
                IDTokenClaims(
                    iss: issuer.issuer, sub: profile.sub, aud: client.clientID, azp: client.clientID, exp: claims.exp,
                    iat: claims.iat, authTime: signIn.authTime, nonce: nonce, acr: signIn.level.rawValue,
                    amr: signIn.amr,
                    atHash: Self.atHash(accessToken, algorithm: algorithm),
                    sid: subjects.session(signIn.sessionID, for: client), profile: profile),
                type: JWTType.idToken, algorithm: algorithm)
        }
        var refreshToken: String?
        if client.grantTypes.contains("refresh_token") {
            let started = familyStarted ?? claims.iat
            let end = started + client.refreshTokenTTLSeconds
            let lifetime = TimeInterval(end) - now().timeIntervalSince1970
            if let rotation, let successor = rotation.successor {
                // The successor copies the grant it replaces, whose payload is the one stored
                // below; it is that token when its expiry and passkey are too, i.e. unless the
                // client's refresh lifetime changed since (or the grant predates its passkey).
                if lifetime > 0, abs(rotation.replaced.expiresAt.timeIntervalSince1970 - TimeInterval(end)) < 1,
                    rotation.replaced.credentialID == signIn.credentialBytes
                {
                    refreshToken = successor
                } else {
                    try await grants.discard(.refreshToken, successor)
                }
            }
            if refreshToken == nil, lifetime > 0 {
                refreshToken = try await grants.create(
                    .refreshToken,
                    RefreshGrant(
                        clientID: client.clientID, scopes: refreshScopes ?? scopes, signIn: signIn, family: family,
                        familyStarted: started, jkt: refreshJKT, x5t: refreshX5T),
                    lifetime: lifetime, family: family, subject: signIn.userID, prefix: "umfa_rt_",
                    credentialID: signIn.credentialBytes)
            }
        }
        return OAuthTokenResponse(
            accessToken: accessToken, tokenType: jkt == nil ? "Bearer" : "DPoP",
            expiresIn: client.accessTokenTTLSeconds,
            scope: scopes.joined(separator: " "), refreshToken: refreshToken, idToken: idToken,
            authorizationDetails: signIn.authorizationDetails?.json)
    }

    /// `at_hash` (OpenID Connect Core §3.1.3.6): base64url of the left half of the hash of the
    /// access token, the hash being the one of the ID token's `alg`: SHA-256 for RS256 and
    /// ES256, SHA-512 for EdDSA over Ed25519 (as OpenID Connect libraries such as panva's
    /// oidc-token-hash and authlib compute it).
    static func atHash(_ accessToken: String, algorithm: TokenSigningAlgorithm) -> String {
        let octets = Array(accessToken.utf8)
        switch algorithm {
        case .rs256, .es256: return Base64URL.encode(Array(SHA256.hash(data: octets)).prefix(16))
        case .edDSA: return Base64URL.encode(Array(SHA512.hash(data: octets)).prefix(32))
        }
    }
}
