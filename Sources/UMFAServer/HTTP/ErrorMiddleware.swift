import Foundation
import Hummingbird
import Logging
import UMFAStorage

/// Turns every error into the documented JSON shape: ``APIError`` as it is, Hummingbird's
/// own errors (404 no route, 413 body too large, 405) with their status, storage failures as
/// 409 (conflict) or 503 (database unavailable), and anything else into a generic 500 whose
/// details go only to the server log. Every answer carries the request's trace id.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let slot = TraceScope.Slot()
        do {
            return try await TraceScope.$current.withValue(slot) { try await next(request, context) }
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch {
            let traceID = slot.value ?? TraceID.from(request)
            return try Self.answer(for: error, traceID: traceID, logger: context.logger)
                .response(from: request, context: context)
        }
    }

    /// The documented answer for an error that is not an ``APIError``.
    static func answer(for error: any Error, traceID: String, logger: Logger) -> APIError {
        switch error {
        case let error as HTTPError:
            let message =
                error.status == .contentTooLarge
                ? "The request body is too large" : (error.body ?? error.status.reasonPhrase)
            return APIError(error.status, message, traceID: traceID)
        case let error as StoreError where error.code == .conflict:
            return APIError(.conflict, "The request conflicts with stored data", traceID: traceID)
        case let error as StoreError where error.code == .unavailable:
            log(error, traceID: traceID, logger: logger)
            return APIError(
                .serviceUnavailable, "The database is unavailable; try again later", traceID: traceID,
                headers: [.retryAfter: "5"])
        default:
            log(error, traceID: traceID, logger: logger)
            return APIError(.internalServerError, "Internal server error", traceID: traceID)
        }
    }

    private static func log(_ error: any Error, traceID: String, logger: Logger) {
        logger.error(
            "internal error",
            metadata: [
                "trace.id": .string(traceID), "error.type": .string(String(describing: type(of: error))),
                "error.message": .string(String(describing: error)),
            ])
    }
}
