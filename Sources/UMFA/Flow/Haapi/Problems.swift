import UMFAContract

/// The kind of a problem (docs/api-flow.md §4), Curity's `ProblemType`.
public enum ProblemType: String, Sendable, CaseIterable {
    /// A field is missing or wrong: see ``InvalidInputProblem/invalidFields``.
    case invalidInputProblem = "urn:umfa:problem:invalid-input"
    /// The passkey response does not verify.
    case incorrectCredentialsProblem = "urn:umfa:problem:incorrect-credentials"
    /// The person may not continue.
    case authenticationFailedProblem = "urn:umfa:problem:authentication-failed"
    /// The abuse limits.
    case tooManyAttemptsProblem = "urn:umfa:problem:too-many-attempts"
    /// The flow is unknown, finished or too old: start again.
    case sessionExpiredProblem = "urn:umfa:problem:session-expired"
    /// The server failed.
    case unexpectedProblem = "urn:umfa:problem:unexpected"
    /// The authorization request ended with an OAuth error: see ``AuthorizationProblem``.
    case errorAuthorizationResponseProblem = "urn:umfa:problem:error-authorization-response"
}

/// A problem the server answered (`application/problem+json`, RFC 9457), Curity's
/// `ProblemRepresentation`: a ``Problem``, an ``InvalidInputProblem`` or an
/// ``AuthorizationProblem``.
public protocol ProblemRepresentation: Sendable {
    /// The problem as the server sent it.
    var flowProblem: FlowProblem { get }
    /// The HTTP status it came with.
    var httpStatus: Int { get }
}

extension ProblemRepresentation {
    /// The problem type.
    public var type: ProblemType { ProblemType(rawValue: flowProblem.type.rawValue) ?? .unexpectedProblem }
    /// A short summary.
    public var title: String { flowProblem.title }
    /// Messages for the person.
    public var messages: [UserMessage] { (flowProblem.messages ?? []).map(UserMessage.init) }
    /// What to do next: correct and retry, start a new flow, or give up.
    public var recovery: Recovery { FlowError(problem: flowProblem, status: httpStatus).recovery }
}

/// A problem of no more specific type, Curity's `Problem`.
public struct Problem: ProblemRepresentation {
    /// The problem as the server sent it.
    public let flowProblem: FlowProblem
    /// The HTTP status it came with.
    public let httpStatus: Int
}

/// Fields that were missing or wrong, Curity's `InvalidInputProblem`.
public struct InvalidInputProblem: ProblemRepresentation {
    /// A field that was wrong, Curity's `InvalidInputProblem.InvalidField`.
    public typealias InvalidField = FlowProblem.InvalidField

    /// The problem as the server sent it.
    public let flowProblem: FlowProblem
    /// The HTTP status it came with.
    public let httpStatus: Int

    /// The fields.
    public var invalidFields: [InvalidField] { flowProblem.invalidFields ?? [] }
}

/// The authorization request ended with an OAuth error (RFC 6749 §4.1.2.1), Curity's
/// `AuthorizationProblem`: `access_denied` after a refused consent, `login_required`, …
public struct AuthorizationProblem: ProblemRepresentation {
    /// The problem as the server sent it.
    public let flowProblem: FlowProblem
    /// The HTTP status it came with.
    public let httpStatus: Int

    /// The OAuth error.
    public var error: String { flowProblem.error ?? "server_error" }
    /// Its description.
    public var errorDescription: String? { flowProblem.errorDescription }
}

/// The typed form of `problem`.
func typedProblem(_ problem: FlowProblem, status: Int) -> any ProblemRepresentation {
    switch problem.type {
    case .invalidInput: InvalidInputProblem(flowProblem: problem, httpStatus: status)
    case .errorAuthorizationResponse: AuthorizationProblem(flowProblem: problem, httpStatus: status)
    default: Problem(flowProblem: problem, httpStatus: status)
    }
}
