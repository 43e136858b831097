import Foundation
import Hummingbird
import Logging
import UMFAContract
import UMFAStorage
import UMFATokens

/// The one place where failures become HTTP answers in the documented shape
/// `{"status", "trace_id", "message"}` (docs/contract.md §2): a ``DomainError`` by its kind (storage
/// failures too: 409 or 503), Hummingbird's own errors (404 no route, 413, 405) by their status,
/// anything else as a generic 500 whose details go only to the server log.
enum ErrorMap {
    /// The status, message and extra headers for `error`.
    static func answer(for error: any Error, traceID: String, logger: Logger) -> (
        HTTPResponse.Status, String, HTTPFields
    ) {
        switch error {
        case let failure as any DomainError:
            if failure.kind == .internalFailure || failure.kind == .unavailable {
                log(error, traceID: traceID, logger: logger)
            }
            if let detail = failure.logDetail {
                logger.notice(
                    "request refused",
                    metadata: [
                        "trace.id": .string(traceID), "error.message": .string(failure.callerMessage),
                        "reason": .string(detail),
                    ])
            }
            var fields = headers(of: failure.kind)
            if let challenge = failure.credentialChallenge {
                if let value = challenge.wwwAuthenticate { fields[.wwwAuthenticate] = value }
                if let nonce = challenge.dpopNonce { fields[.dpopNonce] = nonce }
            }
            return (status(of: failure.kind), failure.callerMessage, fields)
        case is PKCS11Failure, is PKCS11URI.Failure:
            // A key in an HSM that cannot sign now (taken out, PIN changed), or a stored URI this
            // server cannot read: the reason goes to the log.
            log(error, traceID: traceID, logger: logger)
            return (
                .serviceUnavailable, "Token signing is unavailable: the signing key's HSM cannot be used",
                headers(of: .unavailable)
            )
        case let error as HTTPError:
            // The framework's own refusals (no route, 405, 413) before any feature ran.
            let message =
                error.status == .contentTooLarge
                ? "The request body is too large" : (error.body ?? error.status.reasonPhrase)
            return (error.status, message, [:])
        default:
            log(error, traceID: traceID, logger: logger)
            return (.internalServerError, ServiceError.internalFailure.message, [:])
        }
    }

    /// The HTTP status of a code.
    static func status(of code: ServiceError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalidRequest: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .timeout: .requestTimeout
        case .tooLarge: .contentTooLarge
        case .rateLimited: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internalFailure: .internalServerError
        }
    }

    private static func headers(of code: ServiceError.Code) -> HTTPFields {
        switch code {
        case .rateLimited(let seconds): [.retryAfter: String(seconds)]
        case .timeout: [.connection: "close"]
        case .unavailable: [.retryAfter: "5"]
        default: [:]
        }
    }

    /// The documented error response.
    static func response(for error: any Error, traceID: String, logger: Logger) -> Response {
        let (status, message, extra) = answer(for: error, traceID: traceID, logger: logger)
        let reason = (error as? any DomainError)?.reason.flatMap { $0.isInErrorBody ? $0.rawValue : nil }
        return response(status: status, message: message, fields: extra, reason: reason, traceID: traceID)
    }

    /// The 503 of an answer that is expected and logged elsewhere, once per change (readiness).
    static func unavailable(_ message: String, traceID: String) -> Response {
        response(
            status: .serviceUnavailable, message: message, fields: headers(of: .unavailable), reason: nil,
            traceID: traceID)
    }

    private static func response(
        status: HTTPResponse.Status, message: String, fields extra: HTTPFields, reason: String?, traceID: String
    ) -> Response {
        var fields = extra
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        let body = ErrorResponse(status: Int(status.code), traceID: traceID, message: message, reason: reason)
        let data = (try? JSONExchange.encode(body)) ?? Data()
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
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
