import Foundation
import Hummingbird

/// An error answered in UMFA's documented shape: `{"status", "trace_id", "message"}` with
/// the same HTTP status (DESIGN.md §2).
public struct APIError: Error, HTTPResponseError, Sendable {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// The message the client sees; never a secret.
    public let message: String
    /// The request's trace id, or a new one.
    public var traceID: String
    /// Headers to add, such as `Retry-After`.
    public var headers: HTTPFields

    /// Creates an error.
    public init(
        _ status: HTTPResponse.Status, _ message: String, traceID: String = TraceID.make(), headers: HTTPFields = [:]
    ) {
        self.status = status
        self.message = message
        self.traceID = traceID
        self.headers = headers
    }

    /// 400: the request is malformed.
    public static func badRequest(_ message: String, traceID: String) -> APIError {
        APIError(.badRequest, message, traceID: traceID)
    }
    /// 401: unauthenticated or invalid proof.
    public static func unauthorized(_ message: String, traceID: String) -> APIError {
        APIError(.unauthorized, message, traceID: traceID)
    }
    /// 403: not allowed by policy.
    public static func forbidden(_ message: String, traceID: String) -> APIError {
        APIError(.forbidden, message, traceID: traceID)
    }
    /// 404: unknown resource.
    public static func notFound(_ message: String, traceID: String) -> APIError {
        APIError(.notFound, message, traceID: traceID)
    }
    /// 409: conflict with what is stored.
    public static func conflict(_ message: String, traceID: String) -> APIError {
        APIError(.conflict, message, traceID: traceID)
    }

    /// The JSON body.
    struct Body: Encodable {
        let status: Int
        let traceID: String
        let message: String

        enum CodingKeys: String, CodingKey {
            case status, message
            case traceID = "trace_id"
        }
    }

    /// Writes the documented JSON error body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        let data = try JSONEncoder().encode(Body(status: Int(status.code), traceID: traceID, message: message))
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
