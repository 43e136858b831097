import Foundation
import Hummingbird
import NIOPosix
import Synchronization

/// Reading JSON requests and writing JSON responses with UMFA's `trace_id` rules.
enum JSONExchange {
    /// The largest request body accepted; larger ones get 413.
    static let maxBodySize = 64 * 1024

    /// How long a request body may take to arrive in full, in seconds; slower ones get 408.
    /// Bound per request by ``RequestScopeMiddleware`` from the server configuration.
    @TaskLocal static var bodyReadTimeout: TimeInterval = 10

    /// A request body read in full, with the request's `trace_id` (or a new one). Reading
    /// and decoding are separate steps so a route can check credentials in between: a caller
    /// without them learns nothing from how the body is judged.
    struct Body {
        let data: Data
        let isObject: Bool
        let traceID: String

        /// Decodes the body as `T`; malformed JSON or a wrong or missing field gives 400
        /// naming the field.
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard isObject else {
                throw APIError.badRequest("The request body must be a JSON object", traceID: traceID)
            }
            do {
                return try JSONDecoder().decode(T.self, from: data)
            } catch {
                throw APIError.badRequest("Malformed request: \(JSONExchange.describe(error))", traceID: traceID)
            }
        }
    }

    /// Reads the body (413 past ``maxBodySize``) and finds its `trace_id`, falling back to
    /// the `trace_id` query parameter and then to a new one.
    static func read(_ request: Request) async throws -> Body {
        let buffer = try await collect(request)
        let data = Data(buffer: buffer)
        let envelope = try? JSONDecoder().decode(TraceEnvelope.self, from: data)
        let traceID: String
        if let given = envelope?.traceID.flatMap(validTraceID) {
            traceID = given
            TraceScope.record(given)
        } else {
            traceID = TraceID.from(request)
        }
        return Body(data: data, isObject: envelope != nil, traceID: traceID)
    }

    /// Any JSON object, and its `trace_id` when that is a string. Read with `JSONDecoder`,
    /// whose parser is several times faster than `JSONSerialization`'s.
    private struct TraceEnvelope: Decodable {
        let traceID: String?

        private enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            traceID = try? container.decodeIfPresent(String.self, forKey: .traceID)
        }
    }

    /// The body in full: 413 past ``maxBodySize``, 408 when it does not arrive within
    /// ``bodyReadTimeout`` (a slow client cannot hold a request open).
    ///
    /// One reader task and an event-loop timer that cancels it, rather than a task group
    /// whose second child sleeps: two tasks and a sleep per request, most of it on a path
    /// where the body is already there.
    private static func collect(_ request: Request) async throws -> ByteBuffer {
        let timeout = bodyReadTimeout
        let reader = Task {
            var request = request
            return try await request.collectBody(upTo: maxBodySize)
        }
        let timedOut = TimeoutFlag()
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(
            in: .milliseconds(Int64(timeout * 1000))
        ) {
            timedOut.set()
            reader.cancel()
        }
        let result = await withTaskCancellationHandler {
            await reader.result
        } onCancel: {
            reader.cancel()
        }
        timer.cancel()
        switch (result, timedOut.isSet) {
        case (.success(let buffer), false):
            return buffer
        case (.failure, false):
            throw APIError(
                .contentTooLarge, "The request body is too large (at most \(maxBodySize) bytes)",
                traceID: TraceID.from(request))
        case (_, true):
            throw APIError(
                .requestTimeout, "The request body did not arrive within \(Int(timeout)) seconds",
                traceID: TraceID.from(request), headers: [.connection: "close"])
        }
    }

    /// Set once the body timeout has fired.
    private final class TimeoutFlag: Sendable {
        private let fired = Atomic(false)

        var isSet: Bool { fired.load(ordering: .acquiring) }

        func set() { fired.store(true, ordering: .releasing) }
    }

    /// Reads and decodes the body as `T`, returning it with the request's `trace_id`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws
        -> (T, String)
    {
        let body = try await read(request)
        return (try body.decode(T.self), body.traceID)
    }

    /// A client's trace id, accepted when it is short printable text.
    static func validTraceID(_ text: String) -> String? {
        guard !text.isEmpty, text.count <= 128, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f })
        else { return nil }
        return text
    }

    /// A JSON response.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A short description of a decoding error that names the field.
    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "field \(path(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "the body is not valid JSON"
                : "field \(path(context.codingPath)) is invalid: \(context.debugDescription)"
        default:
            return "the body could not be read"
        }
    }
}
