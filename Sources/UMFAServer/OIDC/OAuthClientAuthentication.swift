import Foundation
import HTTPTypes
import UMFAStorage
import UMFAWebAuthn

/// Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3.1):
/// HTTP Basic with the form-encoded id and secret, or `client_id` and `client_secret` in the
/// body — the one the client registered, never both at once. A wrong secret counts against the
/// caller's address like a wrong API key; the right one is never limited.
struct OAuthClientAuthentication: Sendable {
    let services: ServerServices
    let issuer: OAuthIssuer

    /// The authenticated client; `invalid_client` (401) for an unknown client, a wrong secret
    /// or a method the client did not register.
    func authenticate(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthClientRecord {
        let basic = try authorization.map(Self.basicCredentials)
        if basic != nil, form["client_secret"] != nil {
            throw OAuthError.invalidRequest("Use one client authentication method, not two")
        }
        guard let clientID = basic?.id ?? form["client_id"] else {
            throw OAuthError(code: .invalidClient, "Client authentication is required")
        }
        if let basic, let named = form["client_id"], named != basic.id {
            throw OAuthError.invalidRequest("client_id does not match the authenticated client")
        }
        let secret = basic?.secret ?? form["client_secret"]
        let method: ClientAuthenticationMethod =
            basic != nil ? .clientSecretBasic : (secret != nil ? .clientSecretPost : .none)
        let failure = OAuthError(code: .invalidClient, "Client authentication failed", basicChallenge: basic != nil)
        guard
            let client = try await services.store.oauthClient(applicationID: issuer.application.id, clientID: clientID)
        else { try await refuse(caller, counting: true, failure) }
        guard client.authenticationMethod == method else {
            // The client exists: a mismatch of methods is a misconfiguration, not a guess.
            try await refuse(caller, counting: false, failure)
        }
        if method.isConfidential {
            guard let secret, let stored = client.secretHash, constantTimeEqual(Secrets.hash(secret), stored) else {
                try await refuse(caller, counting: true, failure)
            }
        }
        return client
    }

    private func refuse(_ caller: Caller, counting: Bool, _ failure: OAuthError) async throws -> Never {
        do {
            try await services.abuse.refuseCredential(caller, counting: counting, .unauthenticated(failure.description))
        } catch let error as ServiceError where error.code == .unauthenticated {
            throw failure
        }
    }

    /// `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String) throws -> (id: String, secret: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
            let id = String(text[..<colon]).removingPercentEncoding,
            let secret = String(text[text.index(after: colon)...]).removingPercentEncoding, !id.isEmpty
        else {
            throw OAuthError(code: .invalidClient, "The Authorization header is not HTTP Basic credentials")
        }
        return (id, secret)
    }
}
