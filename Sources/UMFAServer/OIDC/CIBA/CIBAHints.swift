import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAStorage
import UMFATokens

/// The person a CIBA request names (OpenID CIBA Core 1.0 §7.1), by exactly one hint:
/// - `login_hint`: the user id, or an email address an account verified;
/// - `id_token_hint`: an ID token this issuer gave the client (an expired one still names its
///   person), whose `sub` is the user id: a pairwise client's `sub` names nobody here, so such a
///   client uses another hint;
/// - `login_hint_token`: a live login token of the application.
///
/// A hint that names nobody is not an error: the request then expires like one nobody answers.
struct CIBAHints: Sendable {
    let store: any CredentialStore & UserProfileStore & OutOfBandStore
    let tokens: TokenService
    let loginTokens: LoginTokens
    let issuer: OAuthIssuer
    let now: @Sendable () -> Date

    static let names = ["login_hint", "id_token_hint", "login_hint_token"]

    /// The user the request's hint names, or `nil` when it names nobody.
    func user(_ form: OAuthForm, client: OAuthClientRecord) async throws -> String? {
        let given = Self.names.compactMap { name in form[name].map { (name, $0) } }
        guard given.count == 1, let (name, value) = given.first else {
            throw OAuthError.invalidRequest("Name the person with exactly one of \(Self.names.joined(separator: ", "))")
        }
        guard value.utf8.count <= 8192 else { throw OAuthError.invalidRequest("\(name) is too long") }
        switch name {
        case "login_hint": return try await loginHint(value)
        case "id_token_hint": return try await idTokenHint(value, client: client)
        default: return try await loginHintToken(value)
        }
    }

    /// The most approvals one person's phone is asked at once: past it, a new request starts none
    /// (and looks like any other), so no client can bury a phone in prompts.
    static let pendingLimit = 5

    /// Whether `userID` can be asked now: a passkey to approve with, and fewer than
    /// ``pendingLimit`` approvals waiting.
    func canBeAsked(_ userID: String) async throws -> Bool {
        let application = issuer.application.id
        guard try await !store.credentials(applicationID: application, userID: userID).isEmpty else { return false }
        return try await store.pendingApprovals(applicationID: application, userID: userID, at: now()).count
            < Self.pendingLimit
    }

    private func loginHint(_ text: String) async throws -> String? {
        guard text.utf8.count <= 320 else { throw OAuthError.invalidRequest("login_hint is longer than 320 bytes") }
        let application = issuer.application.id
        if try await store.user(applicationID: application, userID: text) != nil { return text }
        guard ASCIISplit.contains(text, "@"),
            let userID = try await store.userID(applicationID: application, email: text),
            try await store.userProfile(applicationID: application, userID: userID)?.emailVerified == true
        else { return nil }
        return userID
    }

    private struct IDTokenHint: Decodable {
        let iss: String
        let aud: String
        let sub: String
    }

    private func idTokenHint(_ token: String, client: OAuthClientRecord) async throws -> String? {
        guard
            let payload = try? await tokens.verifiedPayload(
                of: token, type: JWTType.idToken, now: now(), maximumLifetime: 86400),
            let hint = try? JSONDecoder().decode(IDTokenHint.self, from: payload),
            hint.iss.utf8.elementsEqual(issuer.issuer.utf8), hint.aud.utf8.elementsEqual(client.clientID.utf8)
        else {
            throw OAuthError.invalidRequest("id_token_hint must be an ID token this issuer gave this client")
        }
        guard !client.pairwiseSubjects else {
            throw OAuthError.invalidRequest(
                "A pairwise client's ID token names no one here: use login_hint or login_hint_token")
        }
        return hint.sub
    }

    private struct LoginTokenUser: Decodable {
        let userID: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
        }
    }

    private func loginHintToken(_ token: String) async throws -> String? {
        let refused = OAuthError.invalidRequest("login_hint_token must be a live login token of this application")
        guard let parts = try? CompactJWSParts(token, canonical: false),
            let named = try? JSONDecoder().decode(LoginTokenUser.self, from: Data(parts.payload)),
            let claims = try? await loginTokens.validate(token, application: issuer.application, userID: named.userID)
        else { throw refused }
        return claims.userID
    }
}
