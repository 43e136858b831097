import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// Who signed in on the hosted pages, and how: what codes, tokens and the SSO session carry.
struct SignIn: Codable, Sendable, Equatable {
    /// The application's user id (`sub`).
    var userID: String
    /// When the passkey was used, seconds since 1970 (`auth_time`).
    var authTime: Int
    /// RFC 8176 values from the passkey, as for login tokens.
    var amr: [String]
    /// The SSO session the sign-in belongs to (`sid`).
    var sessionID: String
    /// The passkey that signed in (base64url): what the sign-in issues lives only as long as it
    /// stays registered to the user. `nil` only in sign-ins stored before it was recorded.
    var credentialID: String? = nil
    /// The authentication context class reached (`acr`, ``AuthenticationLevel``). `nil` only in
    /// sign-ins stored before it was recorded, which count as the lowest level.
    var acr: String? = nil
    /// What the person authorized with this sign-in (RFC 9396), when the request asked: every
    /// token of the sign-in carries it.
    var authorizationDetails: AuthorizationDetails? = nil

    /// The level ``acr`` names.
    var level: AuthenticationLevel { AuthenticationLevel(acr: acr) ?? .presence }

    /// ``credentialID`` as bytes, as the store keeps it beside the grant.
    var credentialBytes: [UInt8]? { credentialID.flatMap(Base64URL.decode) }
}

/// An authorization request while the person is on the hosted pages: the request, the
/// account being created (between the two steps of account creation), and the sign-in once
/// it happened (while consent is still missing). An API-driven flow (docs/contract.md §6) is an
/// interaction bound to the DPoP key of its flow token (``flowKey``): only requests proven with
/// that key reach it, and the hosted pages never do.
struct Interaction: Codable, Sendable {
    var request: AuthorizationRequest
    var pendingAccount: PendingAccount?
    var signIn: SignIn?
    /// The JWK thumbprint of the flow's DPoP key; `nil` on the hosted pages.
    var flowKey: String? = nil
    /// The out-of-band approval the flow waits for (its transaction id).
    var approvalTransaction: String? = nil

    /// How long a person may take on the hosted pages.
    static let lifetime: TimeInterval = 600

    /// An account whose passkey is being created.
    struct PendingAccount: Codable, Sendable {
        var userID: String
        /// The WebAuthn user handle its creation options carried (base64url); the user is stored
        /// with it only when the passkey verifies. `nil` only in interactions stored before.
        var userHandle: String? = nil
        var email: String
        var givenName: String?
        var familyName: String?
        var phoneNumber: String?
        var deviceName: String?
    }
}

/// The SSO session: a cookie on the issuer's path with a random handle, and a server-side
/// record (docs/contract.md §5). It lets `prompt=none` and later sign-ins skip the ceremony until it
/// expires or RP-initiated logout ends it.
struct SSOSessions: Sendable {
    let grants: OAuthGrants
    let signIns: SignInCredentials

    static let cookieName = "umfa_sso"
    /// How long a session lasts without a new sign-in.
    static let lifetime: TimeInterval = 8 * 3600

    /// The session the request's cookie names, when it is live and the passkey that started it
    /// is still registered to its user (a session of a deleted passkey is no session).
    func current(cookieHeader: String?) async throws -> (handle: String, signIn: SignIn)? {
        guard let handle = Self.cookie(Self.cookieName, in: cookieHeader),
            let found = try await grants.live(.session, handle, as: SignIn.self),
            try await signIns.isRegistered(found.payload, in: grants.issuer.application.id)
        else { return nil }
        return (handle, found.payload)
    }

    /// Starts a session for `signIn`; returns the `Set-Cookie` value.
    func start(_ signIn: SignIn) async throws -> String {
        let handle = try await grants.create(
            .session, signIn, lifetime: Self.lifetime, family: signIn.sessionID, subject: signIn.userID,
            credentialID: signIn.credentialBytes)
        return setCookie(handle, maxAge: Int(Self.lifetime))
    }

    /// Ends the session of `handle`; returns the `Set-Cookie` value that removes the cookie.
    func end(handle: String) async throws -> String {
        if let found = try await grants.live(.session, handle, as: SignIn.self) {
            try await grants.revokeFamily(found.payload.sessionID)
        }
        return setCookie("", maxAge: 0)
    }

    /// `HttpOnly`, `SameSite=Lax` (the redirect back from a client is a top-level GET), `Secure`
    /// when the issuer is on https, and only on the issuer's own path.
    private func setCookie(_ value: String, maxAge: Int) -> String {
        let path = URLComponents(string: grants.issuer.issuer)?.path ?? "/"
        var cookie = "\(Self.cookieName)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if grants.issuer.issuer.hasPrefix("https:") { cookie += "; Secure" }
        return cookie
    }

    /// The value of cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        // By byte (RFC 6265 §4.2.1), compared byte for byte: `;` followed by a combining mark is
        // one Swift `Character` but ends the cookie for the browser (docs/contract.md §4).
        for pair in ASCIISplit.split(header, at: ";") {
            let parts = ASCIISplit.split(ASCIISplit.trimmingWhitespace(pair), at: "=", maxSplits: 1)
            if parts.count == 2, parts[0].utf8.elementsEqual(name.utf8), !parts[1].isEmpty { return String(parts[1]) }
        }
        return nil
    }
}
