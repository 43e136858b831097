import UMFAContract

/// Why a step of the API-driven flow failed, and what to do about it.
public struct FlowError: Error, Sendable, CustomStringConvertible {
    /// What the app should do next.
    public enum Recovery: String, Sendable {
        /// Correct the input or try the same action again.
        case retry
        /// Start a new flow (the flow expired or its token was refused).
        case restartFlow
        /// Stop and show the message.
        case giveUp
    }

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
        case .sessionExpired, .unexpected: recovery = .restartFlow
        case .authenticationFailed, .errorAuthorizationResponse: recovery = .giveUp
        }
    }

    /// An SDK error.
    init(_ error: ZSMError) {
        self.problem = nil
        self.underlying = error
        self.httpStatus = error.httpStatus
        self.message = error.message
        switch error.recovery {
        case .retry: recovery = .retry
        case .startOver: recovery = .restartFlow
        case .giveUp: recovery = .giveUp
        }
    }

    /// A refusal of the flow token or its proof (401): a new flow with a new token.
    init(unauthorized message: String, status: Int) {
        self.problem = nil
        self.underlying = ZSMError(.verificationFailed, message, recovery: .startOver, httpStatus: status)
        self.httpStatus = status
        self.message = message
        self.recovery = .restartFlow
    }

    /// The message.
    public var description: String { message }
}
