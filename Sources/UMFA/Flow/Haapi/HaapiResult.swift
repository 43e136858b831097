/// What a step of the flow came to, Curity's `HaapiResult`: the next step, a problem the
/// person or the client can correct, or an error (a ``HaapiError``).
///
/// ```swift
/// switch await driver.start() {
/// case .representation(let step): show(step)
/// case .problem(let problem): show(problem)
/// case .error(let error): handle(error as? HaapiError)
/// }
/// ```
public enum HaapiResult: Sendable {
    /// The next step: cast it to its type, or read ``HaapiRepresentation/step``.
    case representation(any HaapiRepresentation)
    /// A problem (`application/problem+json`).
    case problem(any ProblemRepresentation)
    /// An error, always a ``HaapiError``.
    case error(any Error)

    /// The step, or the problem or error thrown as a ``FlowError``.
    public func get() throws(FlowError) -> any HaapiRepresentation {
        switch self {
        case .representation(let step): return step
        case .problem(let problem): throw FlowError(problem: problem.flowProblem, status: problem.httpStatus)
        case .error(let error):
            throw (error as? HaapiError)?.flowError ?? FlowError(ZSMError(.serverError, "\(error)"))
        }
    }
}

/// What ``FlowDriver``'s completion handlers get, Curity's `HaapiCompletionHandler`.
public typealias HaapiCompletionHandler = @Sendable (HaapiResult) -> Void
