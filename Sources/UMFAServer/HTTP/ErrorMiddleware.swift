import Foundation
import Hummingbird
import Logging

/// Turns every error into the documented JSON shape: ``APIError`` as it is, Hummingbird's
/// own errors (404 no route, 413 body too large, 405) with their status, and anything else
/// into a generic 500 whose details go only to the server log.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let message =
                error.status == .contentTooLarge
                ? "The request body is too large" : (error.body ?? error.status.reasonPhrase)
            return try APIError(error.status, message).response(from: request, context: context)
        } catch {
            let traceID = TraceID.make()
            context.logger.error(
                "internal error",
                metadata: [
                    "trace.id": .string(traceID), "error.type": .string(String(describing: type(of: error))),
                    "error.message": .string(String(describing: error)),
                ])
            return try APIError(.internalServerError, "Internal server error", traceID: traceID)
                .response(from: request, context: context)
        }
    }
}
