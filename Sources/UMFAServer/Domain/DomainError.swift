import UMFAContract
import UMFAStorage

/// The one family every failure of the server's features belongs to (docs/development.md,
/// "Errors"): a kind (``ServiceError/Code``, never an HTTP status), a machine reason where one kind
/// covers failures a shape tells apart, the words the caller is told, and the challenge a refused
/// credential answers with. ``ErrorMap`` renders every shape from these alone; a shape may also
/// know its own native error (an ``OAuthError`` at an OAuth endpoint, a `FlowProblem` in the
/// API-driven flow), which conforms here too, so nothing a feature throws is a bare 500.
protocol DomainError: Error, Sendable {
    /// What kind of failure it is: the one fact its status is chosen by.
    var kind: ServiceError.Code { get }
    /// What the caller is told (never a secret).
    var callerMessage: String { get }
    /// Why, where one kind covers failures a shape tells apart.
    var reason: ServiceError.Reason? { get }
    /// What only the server log is told: the reason behind a deliberately uniform message.
    var logDetail: String? { get }
    /// The `WWW-Authenticate` value and `DPoP-Nonce` of a refused credential (RFC 6750 §3,
    /// RFC 9449 §7.1 and §9).
    var credentialChallenge: CredentialChallenge? { get }
}

/// The challenge headers of a refused credential.
struct CredentialChallenge: Sendable, Equatable {
    /// The `WWW-Authenticate` value.
    var wwwAuthenticate: String?
    /// A fresh nonce for the `DPoP-Nonce` header.
    var dpopNonce: String?
}

extension DomainError {
    var reason: ServiceError.Reason? { nil }
    var logDetail: String? { nil }
    var credentialChallenge: CredentialChallenge? { nil }
}

extension ServiceError: DomainError {
    var kind: Code { code }
    var callerMessage: String { message }
    var logDetail: String? { detail }
}

extension OAuthError: DomainError {
    /// RFC 6749 §5.2: 401 for a client that failed to authenticate, RFC 6750 §3.1 for a refused
    /// token, 400 for the rest.
    var kind: ServiceError.Code {
        switch code {
        case .invalidClient, .invalidToken: .unauthenticated
        case .temporarilyUnavailable: .unavailable
        case .serverError: .internalFailure
        default: .invalidRequest
        }
    }
    var callerMessage: String { description }
    var credentialChallenge: CredentialChallenge? {
        guard basicChallenge || dpopNonce != nil else { return nil }
        return CredentialChallenge(
            wwwAuthenticate: basicChallenge ? #"Basic realm="umfa""# : nil, dpopNonce: dpopNonce)
    }
}

extension AccessTokenChallenge: DomainError {
    var kind: ServiceError.Code { error.code }
    var callerMessage: String { error.message }
    var credentialChallenge: CredentialChallenge? {
        CredentialChallenge(wwwAuthenticate: challenge, dpopNonce: dpopNonce)
    }
}

extension ProtectedResource.Refusal: DomainError {
    var kind: ServiceError.Code { .unauthenticated }
    var callerMessage: String { AccessTokenChallenge(self).error.message }
    var credentialChallenge: CredentialChallenge? {
        let challenge = AccessTokenChallenge(self)
        return CredentialChallenge(wwwAuthenticate: challenge.challenge, dpopNonce: challenge.dpopNonce)
    }
}

extension AuthorizationRequest.Failure: DomainError {
    var kind: ServiceError.Code {
        switch self {
        case .page: .invalidRequest
        case .redirect(let error, _, _): error.kind
        }
    }
    var callerMessage: String {
        switch self {
        case .page(let title, let message, _): "\(title): \(message)"
        case .redirect(let error, _, _): error.description
        }
    }
}

extension FlowProblem: DomainError {
    var kind: ServiceError.Code {
        switch type {
        case .incorrectCredentials, .sessionExpired: .unauthenticated
        case .authenticationFailed: .forbidden
        // A problem carries no retry time of its own: the first block of the abuse limits.
        case .tooManyAttempts: .rateLimited(retryAfterSeconds: Int(AbuseLimits().baseBlock.components.seconds))
        case .unexpected: .internalFailure
        case .invalidInput, .errorAuthorizationResponse: .invalidRequest
        }
    }
    var callerMessage: String { title }
    var reason: ServiceError.Reason? { type == .sessionExpired ? .sessionExpired : nil }
}

extension StoreError: DomainError {
    /// A unique value that exists already is the caller's conflict; a database away is worth
    /// trying again; data that does not read back is the server's fault.
    var kind: ServiceError.Code {
        switch code {
        case .conflict: .conflict
        case .unavailable: .unavailable
        case .corrupt: .internalFailure
        }
    }
    var callerMessage: String {
        switch code {
        case .conflict: "The request conflicts with stored data"
        case .unavailable: "The database is unavailable; try again later"
        case .corrupt: ServiceError.internalFailure.message
        }
    }
}
