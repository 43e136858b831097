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
    /// The scope an access token needs for these methods.
    public static let passkeysScope = "umfa:passkeys"

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

    private func passkeysRequest<Answer: Decodable>(
        _ method: String, path: [String], query: String? = nil, body: OAuthSession.Body = .none, accessToken: String
    ) async throws(ZSMError) -> Answer {
        var text = device.config.hostURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/api/umfa/me/credentials"
        for segment in path {
            // Credential ids are base64url (RFC 4648 §5): nothing to escape, nothing else allowed.
            guard Base64URL.decode(segment) != nil else {
                throw ZSMError(.invalidConfiguration, "a passkey id is base64url")
            }
            text += "/" + segment
        }
        if let query { text += "?" + query }
        guard let url = URL(string: text) else {
            throw ZSMError(.invalidConfiguration, "the passkey URL is not valid")
        }
        let answer = try await driver.tokens.session.send(method, url, body: body, accessToken: accessToken)
        let traceID = (try? JSONDecoder().decode(ErrorResponse.self, from: answer.data))?.traceID ?? ""
        guard answer.status == 200 else {
            throw UMFAHTTPRelyingParty.serverError(status: answer.status, data: answer.data, traceID: traceID)
        }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: answer.data) else {
            throw ZSMError(.serverError, "the server's answer could not be read", httpStatus: answer.status)
        }
        return decoded
    }
}
