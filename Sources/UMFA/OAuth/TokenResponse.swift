import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// What a token request came to: tokens, the server's RFC 6749 §5.2 error answer, or an error
/// before or around it (the network, an answer that does not read).
public enum TokenResponse: Sendable {
    /// The tokens.
    case success(OAuthTokenResponse)
    /// The server refused, with its error code and HTTP status.
    case errorResponse(OAuthErrorAnswer, status: Int)
    /// The request did not get an answer it could use.
    case error(ZSMError)

    /// The tokens, or the refusal as a ``ZSMError``.
    public func get() throws(ZSMError) -> OAuthTokenResponse {
        switch self {
        case .success(let tokens): return tokens
        case .errorResponse(let answer, let status):
            let recovery: ZSMError.Recovery =
                ["invalid_grant", "login_required"].contains(answer.error)
                ? .startOver
                : (status >= 500 || answer.error == "temporarily_unavailable" ? .retry : .giveUp)
            throw ZSMError(
                .serverError, "\(answer.error): \(answer.errorDescription ?? "the token request was refused")",
                recovery: recovery, httpStatus: status, traceId: answer.traceID)
        case .error(let error): throw error
        }
    }
}

/// PKCE (RFC 7636) for one authorization request, with its `state` and `nonce`.
struct AuthorizationSecrets: Sendable {
    let verifier: String
    let state: String
    let nonce: String
    /// Whether the request asked for `openid` (then an ID token must come back).
    var openID = false

    init() {
        func random() -> String { Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }
        verifier = random()
        state = random()
        nonce = random()
    }

    /// `code_challenge`: base64url(SHA-256(verifier)), method S256.
    var challenge: String { Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) }
}
