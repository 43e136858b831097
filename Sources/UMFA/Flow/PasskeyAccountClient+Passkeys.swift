import Foundation
import UMFAContract
import UMFAEncoding

/// The signed-in user's passkeys, managed with the OAuth access token the app already holds
/// (docs/contract.md §8: `/api/umfa/me/credentials`). The token must have been granted the
/// `umfa:passkeys` scope (ask for it in ``signUp(profile:friendlyName:scopes:)`` or
/// ``logIn(email:scopes:)``); it is sent as the token manager sends every token, with a DPoP
/// proof of the device's key when the token is bound to it (RFC 9449 §7).
///
/// ```swift
/// let tokens = try await accounts.logIn(email: "ada@example.com", scopes: ["openid", "umfa:passkeys"])
/// let passkeys = try await accounts.listPasskeys(accessToken: tokens.tokens.accessToken)
/// try await accounts.renamePasskey(passkeys[0].credentialID, to: "Work phone", accessToken: tokens.tokens.accessToken)
/// ```
///
/// A token without the scope is refused with ``ZSMError/Code/enrollmentNotAllowed`` (HTTP 403
/// `insufficient_scope`); an expired, revoked or foreign one with
/// ``ZSMError/Code/verificationFailed`` (401); an unknown passkey with
/// ``ZSMError/Code/serverError`` (404).
extension PasskeyAccountClient {
    /// The scope an access token needs for the passkey methods.
    public static let passkeysScope = "umfa:passkeys"
    /// The scope an access token needs for ``deleteAccount(accessToken:)``.
    public static let accountScope = "umfa:account"

    /// The user's passkeys: id, name, authenticator, dates, backup state and transports.
    public func listPasskeys(accessToken: String) async throws(ZSMError) -> [MyCredential] {
        let answer: MyCredentialListResponse = try await passkeysRequest(
            "GET", path: [], accessToken: accessToken)
        return answer.credentials
    }

    /// Renames the passkey `credentialID` (base64url) to `name` (1 to 64 characters); `nil` goes
    /// back to the authenticator's name.
    @discardableResult
    public func renamePasskey(_ credentialID: String, to name: String?, accessToken: String) async throws(ZSMError)
        -> MyCredential
    {
        guard let body = try? JSONEncoder().encode(RenameCredentialRequest(name: name)) else {
            throw ZSMError(.invalidConfiguration, "the name does not encode")
        }
        let answer: MyCredentialResponse = try await passkeysRequest(
            "PATCH", path: [credentialID], body: .json(body, names: ["name"]), accessToken: accessToken)
        return answer.credential
    }

    /// Removes the passkey `credentialID` (base64url). The user's last passkey is removed only
    /// with `confirmLast` (the server answers 409, ``ZSMError/Code/alreadyEnrolled``, otherwise).
    /// Tokens issued for a sign-in with the removed passkey stop working.
    public func removePasskey(_ credentialID: String, confirmLast: Bool = false, accessToken: String)
        async throws(ZSMError)
    {
        let _: RemovedResponse = try await passkeysRequest(
            "DELETE", path: [credentialID], query: confirmLast ? "confirm_last=true" : nil, accessToken: accessToken)
    }

    /// Deletes the signed-in user's whole account on the server (docs/contract.md §8,
    /// `DELETE /api/umfa/me`): profile, passkeys, recovery codes, sessions and every token of
    /// theirs, this one included. The token must have been granted ``accountScope`` and come
    /// from a sign-in at most 5 minutes old; an older one is refused with
    /// ``ZSMError/Code/verificationFailed`` (HTTP 401 `insufficient_user_authentication`): sign
    /// in again, then delete. The passkey stays in the device's or platform's credential
    /// store, which the app (or the person) removes.
    public func deleteAccount(accessToken: String) async throws(ZSMError) {
        let answer = try await meRequest("DELETE", path: "/api/umfa/me", accessToken: accessToken)
        guard answer.status == 204 else { throw Self.refusal(answer) }
    }

    private func passkeysRequest<Answer: Decodable>(
        _ method: String, path segments: [String], query: String? = nil, body: OAuthSession.Body = .none,
        accessToken: String
    ) async throws(ZSMError) -> Answer {
        var path = "/api/umfa/me/credentials"
        for segment in segments {
            // Credential ids are base64url (RFC 4648 §5): nothing to escape, nothing else allowed.
            guard Base64URL.decode(segment) != nil else {
                throw ZSMError(.invalidConfiguration, "a passkey id is base64url")
            }
            path += "/" + segment
        }
        if let query { path += "?" + query }
        let answer = try await meRequest(method, path: path, body: body, accessToken: accessToken)
        guard answer.status == 200 else { throw Self.refusal(answer) }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: answer.data) else {
            throw ZSMError(.serverError, "the server's answer could not be read", httpStatus: answer.status)
        }
        return decoded
    }

    /// Sends a request to a `/api/umfa/me` route of the server with `accessToken`.
    private func meRequest(
        _ method: String, path: String, body: OAuthSession.Body = .none, accessToken: String
    ) async throws(ZSMError) -> OAuthSession.Answer {
        var text = device.config.hostURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text + path) else {
            throw ZSMError(.invalidConfiguration, "the account URL is not valid")
        }
        return try await driver.tokens.session.send(method, url, body: body, accessToken: accessToken)
    }

    /// The error a refused `/api/umfa/me` request is, with the server's trace id.
    private static func refusal(_ answer: OAuthSession.Answer) -> ZSMError {
        let traceID = (try? JSONDecoder().decode(ErrorResponse.self, from: answer.data))?.traceID ?? ""
        return UMFAHTTPRelyingParty.serverError(status: answer.status, data: answer.data, traceID: traceID)
    }
}
