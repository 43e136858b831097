import Foundation
import UMFAEncoding
import UMFATokens

/// Who may list, rename and delete a user's passkeys at `/api/umfa/me/credentials…`, and delete
/// the account at `/api/umfa/me` (``accountScope``): the user's
/// fresh login token (``SignedInUser/from(_:loginTokens:applications:)``), or an OAuth access token of the
/// application's issuer that was granted ``scope`` (RFC 9068), sent as `Bearer` (RFC 6750 §2.1)
/// or, when DPoP-bound, as `DPoP` with a proof of its key (RFC 9449 §7), checked exactly as at
/// the userinfo endpoint (``ProtectedResource``).
///
/// An access token must stand for a user (it has `auth_time`), name its own issuer as audience
/// (RFC 9068 §4: not a token minted for another resource) and carry the scope; otherwise
/// ``AccessTokenChallenge`` (401 `invalid_token` or `invalid_dpop_proof`, 403
/// `insufficient_scope`, RFC 6750 §3.1). Like a login token, it must come from a sign-in at
/// most ``SignedInUser/freshness`` old (`auth_time`) that verified the user (``level``), else
/// 401 `insufficient_user_authentication` with `acr_values` and `max_age` (RFC 9470 §3).
struct PasskeyManagementAccess: Sendable {
    /// The scope an access token needs for the passkey routes.
    static let scope = "umfa:passkeys"
    /// The scope an access token needs to delete the user's account (`DELETE /api/umfa/me`).
    static let accountScope = "umfa:account"
    /// The authentication context an access token's sign-in must have reached: the user was
    /// verified (RFC 9470 §3 `acr_values` when it was not).
    static let level = AuthenticationLevel.passkey

    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider
    let loginTokens: LoginTokens

    /// The user `values`' request speaks for; an access token must have been granted `scope`.
    func user(_ caller: Caller, values: RequestValues, scope: String = Self.scope) async throws -> SignedInUser {
        let presented = values.presented
        guard let (scheme, token) = ProtectedResource.credentials(presented.authorization),
            scheme == .dpop || Self.isAccessToken(token)
        else { return try await SignedInUser.from(caller, loginTokens: loginTokens, applications: provider.store) }
        let invalid = AccessTokenChallenge(
            error: .unauthenticated("The access token is invalid, expired or revoked"), scheme: scheme.rawValue,
            code: "invalid_token")
        guard let issuer = try await issuer(of: token) else { throw invalid }
        var base = provider.publicURL
        while base.hasSuffix("/") { base.removeLast() }
        let claims: AccessTokenClaims
        do {
            // Step 1 (RFC 9068 §4): the token is the issuer's, valid, unrevoked, for a user, for
            // the issuer itself; RFC 9449 §7: a bound token with a proof of its key for this URL.
            claims = try await provider.engine(for: issuer).protectedResource(url: base + values.requestPath)
                .claims(of: presented) { $0.authTime != nil && $0.aud.utf8.elementsEqual(issuer.issuer.utf8) }
        } catch let refusal as ProtectedResource.Refusal {
            throw AccessTokenChallenge(refusal)
        }
        // Step 2 (RFC 6750 §3.1): the scope, else 403 insufficient_scope.
        guard claims.scope.split(separator: " ").contains(Substring(scope)) else {
            throw AccessTokenChallenge(
                error: .forbidden("The access token was not granted the \(scope) scope"),
                scheme: claims.cnf == nil ? "Bearer" : "DPoP", code: "insufficient_scope", scope: scope)
        }
        // Step 3 (RFC 9470 §3): a sign-in as recent as a login token's must be, with the user
        // verified (``level``). A refreshed access token keeps its first sign-in's `auth_time`
        // and `acr`, so a stolen refresh token (or an old session) cannot rename or delete
        // passkeys weeks later, and a passkey used without its PIN cannot at all.
        let oldest = provider.now().timeIntervalSince1970 - SignedInUser.freshness
        let fresh = claims.authTime.map { Double($0) >= oldest } ?? false
        let verified = AuthenticationLevel(acr: claims.acr).map { $0 >= Self.level } ?? false
        guard fresh, verified else {
            var challenge = AccessTokenChallenge(
                error: .unauthenticated(
                    "Sign in again with user verification (acr_values \(Self.level.rawValue)): this needs a "
                        + "sign-in at most \(Int(SignedInUser.freshness)) seconds old"),
                scheme: claims.cnf == nil ? "Bearer" : "DPoP", code: "insufficient_user_authentication")
            challenge.maxAge = Int(SignedInUser.freshness)
            challenge.acrValues = Self.level.rawValue
            throw challenge
        }
        return SignedInUser(application: issuer.application, userID: claims.user)
    }

    /// Whether `token` is a JWT whose header says `at+jwt` (RFC 9068 §2.1); login tokens are not.
    static func isAccessToken(_ token: String) -> Bool {
        guard let dot = token.firstIndex(of: "."), let header = Base64URL.decode(String(token[..<dot])),
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(header))
        else { return false }
        return object["typ"]?.stringValue?.lowercased() == JWTType.accessToken
    }

    /// The issuer the token's `iss` names, when it is one of this server's applications; the
    /// signature and the claims are checked after, against that issuer only.
    private func issuer(of token: String) async throws -> OAuthIssuer? {
        struct Named: Decodable { let iss: String }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let named = try? JSONDecoder().decode(Named.self, from: Data(payload)),
            let slash = named.iss.lastIndex(of: "/"),
            let id = UUID(uuidString: String(named.iss[slash...].dropFirst())),
            let application = try await provider.store.application(id: id)
        else { return nil }
        let issuer = OAuthIssuer(application: application, publicURL: provider.publicURL)
        return issuer.issuer.utf8.elementsEqual(named.iss.utf8) ? issuer : nil
    }
}

/// An access token refused at a resource: the coded error for the body (docs/contract.md §2) and the
/// `WWW-Authenticate` challenge of RFC 6750 §3 or RFC 9449 §7.1, with a `DPoP-Nonce` when a
/// proof must be sent again with one (RFC 9449 §9).
struct AccessTokenChallenge: Error, Sendable {
    let error: ServiceError
    /// `Bearer` or `DPoP`.
    let scheme: String
    /// The RFC 6750 §3.1 or RFC 9449 §7.1 error code; `nil` when no token was sent.
    let code: String?
    var scope: String? = nil
    var dpopNonce: String? = nil
    /// RFC 9470 §3: the largest sign-in age the resource accepts, in seconds.
    var maxAge: Int? = nil
    /// RFC 9470 §3: the authentication context classes the resource accepts, space-separated.
    var acrValues: String? = nil

    init(error: ServiceError, scheme: String, code: String?, scope: String? = nil) {
        self.error = error
        self.scheme = scheme
        self.code = code
        self.scope = scope
    }

    init(_ refusal: ProtectedResource.Refusal) {
        error = .unauthenticated(refusal.error?.description ?? "Send the access token")
        scheme = refusal.scheme.rawValue
        code = refusal.error?.code.rawValue
        dpopNonce = refusal.error?.dpopNonce
    }

    /// The `WWW-Authenticate` value.
    var challenge: String {
        var value = #"\#(scheme) realm="umfa""#
        if let code { value += #", error="\#(code)""# }
        if let scope { value += #", scope="\#(scope)""# }
        if let acrValues { value += #", acr_values="\#(acrValues)""# }
        if let maxAge { value += ", max_age=\(maxAge)" }
        if scheme == "DPoP" { value += #", algs="\#(DPoPProof.algorithms.joined(separator: " "))""# }
        return value
    }
}
