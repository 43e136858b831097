import Foundation
import Hummingbird
import Logging
import UMFAContract

extension ErrorMap {
    /// The `application/problem+json` answer of the API-driven flow (docs/contract.md §6) for any error:
    /// a ``FlowProblem`` as it is, an ``OAuthError`` as `error-authorization-response`, and every
    /// other error by the status ``answer(for:traceID:logger:)`` gives it, so the flow and the
    /// rest of the API agree on what each failure is.
    static func problemResponse(for error: any Error, traceID: String, logger: Logger) -> Response {
        let (status, problem, headers) = problemAnswer(for: error, traceID: traceID, logger: logger)
        let data = (try? JSONExchange.encode(problem)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The status, problem and headers of ``problemResponse(for:traceID:logger:)``: a
    /// ``ServiceError``'s from its code and reason alone, never from its message.
    static func problemAnswer(for error: any Error, traceID: String, logger: Logger) -> (
        HTTPResponse.Status, FlowProblem, HTTPFields
    ) {
        var problem: FlowProblem
        var headers: HTTPFields = [:]
        var status: HTTPResponse.Status?
        switch error {
        case let given as FlowProblem:
            problem = given
        case let oauth as OAuthError:
            problem = FlowProblem(
                .errorAuthorizationResponse, "The authorization request ended with an error",
                error: oauth.code.rawValue,
                errorDescription: oauth.description)
        case AuthorizationRequest.Failure.redirect(let oauth, _, _):
            problem = FlowProblem(
                .errorAuthorizationResponse, "The authorization request ended with an error",
                error: oauth.code.rawValue,
                errorDescription: oauth.description)
        case AuthorizationRequest.Failure.page(let title, let message, _):
            problem = FlowProblem(.invalidInput, "\(title): \(message)")
        default:
            let (answerStatus, message, extra) = answer(for: error, traceID: traceID, logger: logger)
            headers = extra
            problem = FlowProblem(kind(of: answerStatus.code, reason: (error as? any DomainError)?.reason), message)
            if answerStatus.code >= 500 { status = answerStatus }
        }
        problem.traceID = traceID
        headers[.contentType] = FlowProblem.mediaType
        headers[.cacheControl] = "no-store"
        return (status ?? HTTPResponse.Status(code: problem.type.status), problem, headers)
    }

    /// The problem type of a status of the rest of the API (which a ``ServiceError``'s code
    /// decides) and the error's reason; never of its message.
    private static func kind(of status: Int, reason: ServiceError.Reason?) -> FlowProblem.Kind {
        switch status {
        case 401: reason == .sessionExpired ? .sessionExpired : .incorrectCredentials
        case 403: .authenticationFailed
        case 429: .tooManyAttempts
        case 400..<500: .invalidInput
        default: .unexpected
        }
    }
}
