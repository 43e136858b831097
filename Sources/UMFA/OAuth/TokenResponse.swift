import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnModel

/// The tokens of a successful token request (RFC 6749 §5.1): Curity's `SuccessfulTokenResponse`,
/// with `accessToken`, `tokenType`, `expiresIn`, `refreshToken`, `idToken` and `scope`.
public typealias SuccessfulTokenResponse = OAuthTokenResponse

/// The server's refusal of a token request (RFC 6749 §5.2), Curity's `ErrorTokenResponse`.
public struct ErrorTokenResponse: Sendable, Equatable, Error {
    /// The error code (`invalid_grant`, `invalid_client`, …).
    public var error: String
    /// Words for a developer.
    public var errorDescription: String?
    /// The HTTP status it came with.
    public var statusCode: Int
    /// UMFA's trace id, when the server is UMFA.
    public var traceId: String?

    /// Creates a refusal.
    public init(error: String, errorDescription: String? = nil, statusCode: Int, traceId: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.statusCode = statusCode
        self.traceId = traceId
    }

    /// UMFA's trace id, by its former name.
    @available(*, deprecated, renamed: "traceId")
    public var traceID: String? {
        get { traceId }
        set { traceId = newValue }
    }

    /// Creates a refusal (the former argument label).
    @available(*, deprecated, renamed: "init(error:errorDescription:statusCode:traceId:)")
    public init(error: String, errorDescription: String? = nil, statusCode: Int, traceID: String?) {
        self.init(error: error, errorDescription: errorDescription, statusCode: statusCode, traceId: traceID)
    }

    init(_ answer: OAuthErrorAnswer, status: Int) {
        self.init(
            error: answer.error, errorDescription: answer.errorDescription, statusCode: status, traceId: answer.traceId)
    }

    /// The refusal as a ``ZSMError`` that says what to do next.
    public var zsmError: ZSMError {
        let recovery: ZSMError.Recovery =
            ["invalid_grant", "login_required"].contains(error)
            ? .startOver
            : (statusCode >= 500 || error == "temporarily_unavailable" ? .retry : .giveUp)
        return ZSMError(
            .serverError, "\(error): \(errorDescription ?? "the token request was refused")", recovery: recovery,
            httpStatus: statusCode, traceId: traceId)
    }
}

/// What a token request came to, Curity's `TokenResponse`: tokens, the server's refusal, or an
/// error of the SDK (the network, the DPoP key, an answer that does not read).
public enum TokenResponse: Sendable {
    /// The tokens.
    case successfulToken(SuccessfulTokenResponse)
    /// The server refused (RFC 6749 §5.2).
    case errorToken(ErrorTokenResponse)
    /// The request did not get an answer it could use.
    case error(ZSMError)

    /// The server's refusal, when it refused.
    var refusal: ErrorTokenResponse? {
        if case .errorToken(let refusal) = self { return refusal }
        return nil
    }

    /// The tokens, or the refusal as a ``ZSMError``.
    public func get() throws(ZSMError) -> SuccessfulTokenResponse {
        switch self {
        case .successfulToken(let tokens): return tokens
        case .errorToken(let refusal): throw refusal.zsmError
        case .error(let error): throw error
        }
    }
}

/// PKCE (RFC 7636) for one authorization request, with its `state` and `nonce`.
struct AuthorizationSecrets: Sendable, Codable {
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
