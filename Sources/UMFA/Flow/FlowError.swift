import Foundation
import UMFAContract

/// Why a step of the API-driven flow failed, and what to do about it.
///
/// A `LocalizedError`: ``errorDescription`` (and so `localizedDescription`) is ``message``,
/// the words an alert shows, as ReachFive's `errorDescription` is.
public struct FlowError: LocalizedError, Sendable, CustomStringConvertible {
    /// What the app should do next: the SDK's one ``UMFA/Recovery`` (``Recovery/startOver``:
    /// start a new flow).
    public typealias Recovery = UMFA.Recovery

    /// The server's problem (`application/problem+json`), when it sent one.
    public let problem: FlowProblem?
    /// The SDK's error, when the failure is not a problem (the network, the device, a refusal).
    public let underlying: ZSMError?
    /// What to do next.
    public let recovery: Recovery
    /// Words for the person, never a secret.
    public let message: String
    /// The HTTP status, when the server answered.
    public let httpStatus: Int?

    /// A problem the server sent.
    init(problem: FlowProblem, status: Int) {
        self.problem = problem
        self.underlying = nil
        self.httpStatus = status
        self.message = problem.errorDescription.map { "\(problem.title): \($0)" } ?? problem.title
        switch problem.type {
        case .invalidInput, .incorrectCredentials, .tooManyAttempts: recovery = .retry
        case .sessionExpired, .unexpected: recovery = .startOver
        case .authenticationFailed, .errorAuthorizationResponse: recovery = .giveUp
        }
    }

    /// An SDK error.
    init(_ error: ZSMError) {
        self.problem = nil
        self.underlying = error
        self.httpStatus = error.httpStatus
        self.message = error.message
        recovery = error.recovery
    }

    /// A refusal of the flow token or its proof (401): a new flow with a new token.
    init(unauthorized message: String, status: Int) {
        self.problem = nil
        self.underlying = ZSMError(.verificationFailed, message, recovery: .startOver, httpStatus: status)
        self.httpStatus = status
        self.message = message
        self.recovery = .startOver
    }

    /// The message.
    public var description: String { message }

    /// The message, for an alert (`LocalizedError`).
    public var errorDescription: String? { message }
}
