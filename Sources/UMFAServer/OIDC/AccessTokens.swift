import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens

/// The claims of an OAuth access token (RFC 9068 §2.2).
struct AccessTokenClaims: Codable, Sendable {
    let iss: String
    let sub: String
    let aud: String
    let clientID: String
    let scope: String
    let iat: Int
    let exp: Int
    let jti: String
    /// When the user signed in (user tokens only; RFC 9068 §2.2.1).
    var authTime: Int? = nil
    /// How the user signed in (user tokens only).
    var amr: [String]? = nil
    /// The authentication context class the sign-in reached (user tokens only; RFC 9068
    /// §2.2.1, ``AuthenticationLevel``).
    var acr: String? = nil
    /// The DPoP key (RFC 9449 §6.1) and the TLS client certificate (RFC 8705 §3.1) the token is
    /// bound to.
    var cnf: TokenConfirmation? = nil
    /// The passkey the user signed in with (base64url, as in a login token; user tokens only):
    /// the token is valid only while it stays registered to the user.
    var credentialID: String? = nil
    /// A pairwise client's user token (OpenID Connect Core §8.1): the user id and the passkey,
    /// sealed with the master key, in place of `credential_id`, so that the token tells the
    /// client nothing another client could match. Opened when the token is checked.
    var subjectReference: String? = nil
    /// The user the token stands for: `sub`, or the user id ``subjectReference`` holds. Set when
    /// the token is checked, never read from it.
    var userID: String? = nil
    /// What the person authorized (RFC 9396 §9.1), as the request asked.
    var authorizationDetails: JSONValue? = nil

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, scope, iat, exp, jti, acr, amr, cnf
        case authorizationDetails = "authorization_details"
        case clientID = "client_id"
        case authTime = "auth_time"
        case credentialID = "credential_id"
        case subjectReference = "umfa_sub_ref"
    }

    /// The user id of the token's user (not its client's `sub` of it); ``sub`` for a token that
    /// was not checked.
    var user: String { userID ?? sub }

    /// What ``subjectReference`` seals.
    struct Reference: Codable {
        let user: String
        let credential: String?
    }

    /// The family of a user token (`<family>.<random>`), revoked together with its refresh tokens.
    var family: String? {
        guard let dot = jti.firstIndex(of: ".") else { return nil }
        return String(jti[..<dot])
    }
}

/// Issues and checks an issuer's access tokens: JWTs with `typ` `at+jwt` (RFC 9068), signed with
/// the server's token keys and published in the issuer's JWKS. A token is valid for its own
/// issuer only, until it expires or is revoked (RFC 7009); a user's token, only while the passkey
/// that signed in is registered.
struct AccessTokens: Sendable {
    static let type = JWTType.accessToken
    let tokens: TokenService
    /// The revocation marks.
    let store: any OAuthClientStore
    let signIns: SignInCredentials
    /// Seals a pairwise client's token's user (``AccessTokenClaims/subjectReference``).
    let sealed: SealedSecrets
    /// The `sub` each client sees of a user.
    let subjects: SubjectIdentifiers
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// A new access token for `client`, with the subject `subject` and `scopes`, bound to the DPoP
    /// key `jkt` and the client certificate `x5t` (`x5t#S256`) when given.
    func issue(
        to client: OAuthClientRecord, subject: String, scopes: [String], audience: String?, signIn: SignIn? = nil,
        family: String? = nil, jkt: String? = nil, x5t: String? = nil
    ) async throws -> (token: String, claims: AccessTokenClaims) {
        // docs/oidc-provider.md: a first-party-only scope is never in a self-registered client's
        // token, whatever asked for it (a grant or a refresh token from before the rule).
        if client.isSelfRegistered, let refused = scopes.first(where: ClientRegistrationRules.isFirstPartyOnly) {
            throw OAuthError(code: .invalidScope, "The client may not be granted the scope \(refused)")
        }
        let now = Int(now().timeIntervalSince1970)
        let random = Base64URL.encode(Secrets.randomBytes(16))
        // A user's token for a pairwise client: the client's `sub`, and the user and passkey sealed.
        let pairwise = signIn != nil && client.sector != nil
        var reference: String?
        if pairwise {
            let sealed = try sealed.seal(
                String(
                    decoding: try JSONEncoder().encode(
                        AccessTokenClaims.Reference(user: subject, credential: signIn?.credentialID)), as: UTF8.self),
                for: .subjectReference)
            reference = Base64URL.encode(sealed)
        }
        var claims = AccessTokenClaims(
            iss: issuer.issuer, sub: pairwise ? subjects.subject(of: subject, for: client) : subject,
            aud: audience ?? issuer.issuer, clientID: client.clientID,
            scope: scopes.joined(separator: " "), iat: now, exp: now + client.accessTokenTTLSeconds,
            jti: family.map { "\($0).\(random)" } ?? random, authTime: signIn?.authTime, amr: signIn?.amr,
            acr: signIn?.level.rawValue,
            cnf: jkt == nil && x5t == nil ? nil : TokenConfirmation(jkt: jkt, x5tS256: x5t),
            credentialID: pairwise ? nil : signIn?.credentialID)
        claims.subjectReference = reference
        claims.authorizationDetails = signIn?.authorizationDetails?.json
        let algorithm = issuer.application.tokenSigningAlgorithm
        return (try await tokens.sign(claims, type: Self.type, algorithm: algorithm), claims)
    }

    /// The claims of `token` when it is a valid access token of this issuer now; `nil` otherwise
    /// (another issuer's, expired, revoked, a login token, a forgery).
    func validClaims(_ token: String) async throws -> AccessTokenClaims? {
        let now = self.now()
        let maximumLifetime = TimeInterval(OAuthClientSettings.accessTokenTTL.upperBound)
        guard
            let payload = try? await tokens.verifiedPayload(
                of: token, type: Self.type, now: now, maximumLifetime: maximumLifetime),
            var claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: payload),
            claims.iss.utf8.elementsEqual(issuer.issuer.utf8), Double(claims.exp) > now.timeIntervalSince1970,
            Double(claims.iat) <= now.timeIntervalSince1970 + 60, claims.exp - claims.iat <= Int(maximumLifetime)
        else { return nil }
        // The token itself, or its family (RFC 9700 §4.14.2), revoked.
        let revocable = [claims.jti] + (claims.family.map { [$0] } ?? [])
        if try await store.isAnyAccessTokenRevoked(jtis: revocable, applicationID: issuer.application.id) {
            return nil
        }
        // A pairwise client's token: its user and passkey, sealed by this server.
        if let reference = claims.subjectReference {
            guard let bytes = Base64URL.decode(reference),
                let text = try? sealed.open(bytes, for: .subjectReference),
                let opened = try? JSONDecoder().decode(AccessTokenClaims.Reference.self, from: Data(text.utf8))
            else { return nil }
            (claims.userID, claims.credentialID) = (opened.user, opened.credential)
        }
        // A user's token ends with the passkey that signed in (its `credential_id` claim).
        if claims.authTime != nil || claims.credentialID != nil,
            try await !signIns.isRegistered(
                credentialID: claims.credentialID, userID: claims.user, in: issuer.application.id)
        {
            return nil
        }
        claims.userID = claims.user
        return claims
    }

    /// Revokes the access token `claims` stand for until it expires, on every instance.
    func revoke(_ claims: AccessTokenClaims) async throws {
        try await store.revokeAccessToken(
            jti: claims.jti, applicationID: issuer.application.id,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }
}
