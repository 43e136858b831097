/// Curity's `HaapiError`, case by case, as UMFA's errors map to it (docs/sdk-products.md,
/// Curity): ``ZSMError/haapiError`` for a token request's `.error`, ``ErrorTokenResponse/haapiError``
/// for a refusal, and ``HaapiResult/error(_:)`` of ``FlowDriver``'s typed methods carries one.
/// Each case keeps the ``ZSMError`` it came from (``zsmError``), with its ``Recovery``.
///
/// Cases UMFA never produces, and why: `assertionFailure` and `attestationKeyGenFailure` (the
/// app attests itself in its own closure, ``ClientAuthentication/attestation(_:)``; the SDK makes
/// no attestation key or assertion), `haapiTokenManagerAlreadyExists` and
/// `haapiTokenManagerIsClosed` (no named, closable token manager: managers are plain values),
/// `attestationNotSupported` (an app that cannot attest is `attestationFailure`),
/// `dpopProofCreationFailure` (a proof that cannot be made is `dpopProofFailure`).
public enum HaapiError: Error, Sendable {
    /// Not produced by UMFA.
    case assertionFailure(cause: any Error)
    /// The app could not attest itself (its ``ClientAuthentication/attestation(_:)`` closure
    /// threw) and no DCR template took over: ``FlowDriver/start(prompt:loginHint:scopes:)``.
    case attestationFailure(cause: any Error)
    /// Not produced by UMFA.
    case attestationKeyGenFailure(cause: any Error)
    /// Not produced by UMFA.
    case attestationNotSupported
    /// The server refused the client's attestation (`invalid_client` to an attesting client)
    /// and no DCR template took over: ``FlowDriver/start(prompt:loginHint:scopes:)``.
    case attestationRefusedByServer(cause: any Error)
    /// The server could not be reached or did not answer in time (``ZSMError/Code/networkError``).
    case communication(message: String, cause: any Error)
    /// The device's DPoP key is gone for good (``ZSMError/Code/keyDisappearedPermanently``).
    case dpopKeyCreationFailure(cause: any Error)
    /// Not produced by UMFA: see ``dpopProofFailure(message:cause:)``.
    case dpopProofCreationFailure(cause: any Error)
    /// The DPoP key could not be read or could not sign a proof (``ZSMError/Code/keyStoreDamaged``).
    case dpopProofFailure(message: String, cause: any Error)
    /// Not produced by UMFA.
    case haapiTokenManagerAlreadyExists(name: String)
    /// Not produced by UMFA.
    case haapiTokenManagerIsClosed
    /// The flow token was refused (expired, revoked, another key: HTTP 401): start a new flow.
    case haapiTokenManagerIsExpired
    /// Something out of order: a step before ``FlowDriver/start(prompt:loginHint:scopes:)``, an
    /// authorization response that is not the flow's (another `state`), an answer that does
    /// not read, a device error.
    case illegalState(message: String)
    /// The configuration cannot work (``ZSMError/Code/invalidConfiguration``).
    case invalidConfiguration(reason: String)
    /// The server answered an unexpected HTTP status.
    case invalidStatusCode(statusCode: Int)
    /// The token endpoint refused (RFC 6749 §5.2).
    case serverError(error: String, errorDescription: String?, statusCode: Int)

    /// `error` as Curity's cases name it.
    public init(_ error: ZSMError) {
        switch error.code {
        case .networkError: self = .communication(message: error.message, cause: error)
        case .keyStoreDamaged: self = .dpopProofFailure(message: error.message, cause: error)
        case .keyDisappearedPermanently: self = .dpopKeyCreationFailure(cause: error)
        case .invalidConfiguration: self = .invalidConfiguration(reason: error.message)
        case .verificationFailed where error.httpStatus == 401: self = .haapiTokenManagerIsExpired
        case .serverError where error.httpStatus.map({ $0 >= 300 }) == true:
            self = .invalidStatusCode(statusCode: error.httpStatus ?? 0)
        default: self = .illegalState(message: error.message)
        }
    }

    /// `refusal` as Curity's case names it.
    public init(_ refusal: ErrorTokenResponse) {
        self = .serverError(
            error: refusal.error, errorDescription: refusal.errorDescription, statusCode: refusal.statusCode)
    }

    /// A flow's error: its SDK error, or the server's problem as ``serverError(error:errorDescription:statusCode:)``.
    public init(_ error: FlowError) {
        if let underlying = error.underlying {
            self.init(underlying)
        } else {
            self = .serverError(
                error: error.problem?.type.rawValue ?? "server_error", errorDescription: error.message,
                statusCode: error.httpStatus ?? 500)
        }
    }

    /// The UMFA error this case came from.
    public var zsmError: ZSMError {
        switch self {
        case .assertionFailure(let cause), .attestationFailure(let cause), .attestationKeyGenFailure(let cause),
            .attestationRefusedByServer(let cause), .communication(_, let cause), .dpopKeyCreationFailure(let cause),
            .dpopProofCreationFailure(let cause), .dpopProofFailure(_, let cause):
            if let error = cause as? ZSMError { return error }
            if let refusal = cause as? ErrorTokenResponse { return refusal.zsmError }
            return ZSMError(.serverError, "\(cause)")
        case .attestationNotSupported:
            return ZSMError(.invalidConfiguration, "this device cannot attest the app")
        case .haapiTokenManagerAlreadyExists(let name):
            return ZSMError(.invalidConfiguration, "a token manager named \(name) exists")
        case .haapiTokenManagerIsClosed: return ZSMError(.invalidConfiguration, "the token manager is closed")
        case .haapiTokenManagerIsExpired:
            return ZSMError(.verificationFailed, "the flow token was refused", recovery: .startOver, httpStatus: 401)
        case .illegalState(let message): return ZSMError(.serverError, message, recovery: .startOver)
        case .invalidConfiguration(let reason): return ZSMError(.invalidConfiguration, reason)
        case .invalidStatusCode(let status): return ZSMError(.serverError, "HTTP \(status)", httpStatus: status)
        case .serverError(let error, let description, let status):
            return ErrorTokenResponse(error: error, errorDescription: description, statusCode: status).zsmError
        }
    }

    /// What the app should do next.
    public var recovery: Recovery { zsmError.recovery }

    /// The error as a ``FlowError``.
    public var flowError: FlowError { FlowError(zsmError) }
}

extension ZSMError {
    /// This error as Curity's ``HaapiError`` case.
    public var haapiError: HaapiError { HaapiError(self) }
}

extension ErrorTokenResponse {
    /// This refusal as Curity's ``HaapiError/serverError(error:errorDescription:statusCode:)``.
    public var haapiError: HaapiError { HaapiError(self) }
}
