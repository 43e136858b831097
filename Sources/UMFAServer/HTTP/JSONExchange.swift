import Foundation
import Hummingbird
import NIOPosix
import Synchronization

/// Reading JSON requests and writing JSON responses with UMFA's `trace_id` rules.
enum JSONExchange {
    /// The largest request body accepted; larger ones get 413.
    static let maxBodySize = 64 * 1024

    /// A request body read in full, with the request's `trace_id` (or a new one). Reading
    /// and decoding are separate steps so a route can check credentials in between: a caller
    /// without them learns nothing from how the body is judged.
    struct Body: Sendable {
        let data: Data
        let isObject: Bool
        let traceID: String

        /// Decodes the body as `T`; malformed JSON or a wrong or missing field gives 400
        /// naming the field.
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try checkText()
            guard isObject else { throw ServiceError.invalid("The request body must be a JSON object") }
            do {
                return try JSONDecoder().decode(T.self, from: data)
            } catch {
                throw ServiceError.invalid(JSONExchange.describe(error))
            }
        }

        /// The checks of the text itself that come before any decoding error.
        func checkText() throws {
            // RFC 8259 §8.1: JSON text is UTF-8. The decoder reads only the members a route
            // knows, so the rest would otherwise pass unchecked (docs/contract.md §4).
            guard JSONExchange.isUTF8JSONText(data) else {
                throw ServiceError.invalid("The request body is not valid UTF-8 JSON")
            }
            // No stored text may hold U+0000 (PostgreSQL cannot), so no string in a body may.
            guard !JSONExchange.containsEscapedNUL(data) else {
                throw ServiceError.invalid("Strings in the request body must not contain U+0000")
            }
        }
    }

    /// A body read for one route's type: its trace id now, the decoded value (or the 400) only
    /// when asked, so a route still checks credentials before judging the body.
    struct TypedBody<T: Decodable & Sendable>: Sendable {
        let traceID: String
        private let body: Body
        private let parsed: T?

        init(body: Body, parsed: T?) {
            self.traceID = body.traceID
            self.body = body
            self.parsed = parsed
        }

        /// Whether the request had no body at all (or only white space).
        var isEmpty: Bool { body.data.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) } }

        /// The value; malformed JSON or a wrong or missing field gives 400 naming the field.
        func decode() throws -> T {
            guard let parsed else { return try body.decode(T.self) }
            try body.checkText()
            return parsed
        }
    }

    /// Reads the body and decodes it as `T` and its `trace_id` in one parse (a body that does
    /// not decode is parsed again, for its trace id and the error's wording); a body middleware
    /// already read is decoded from there.
    static func read<T: Decodable & Sendable>(_ type: T.Type, _ request: Request, context: UMFARequestContext)
        async throws -> TypedBody<T>
    {
        if let body = context.readBody { return TypedBody(body: body, parsed: nil) }
        let data = Data(buffer: try await collect(request, timeout: context.bodyReadTimeout))
        guard let traced = try? JSONDecoder().decode(Traced<T>.self, from: data) else {
            return TypedBody(body: body(data, request: request, context: context), parsed: nil)
        }
        let traceID = settledTraceID(traced.traceID, request: request, context: context)
        return TypedBody(body: Body(data: data, isObject: true, traceID: traceID), parsed: traced.value)
    }

    /// A route's type and the body's `trace_id`, decoded together.
    private struct Traced<T: Decodable>: Decodable {
        let value: T
        let traceID: String?

        private enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
        }

        init(from decoder: any Decoder) throws {
            // A body must be an object, whatever `T` would take.
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try T(from: decoder)
            traceID = try? container.decodeIfPresent(String.self, forKey: .traceID)
        }
    }

    /// Whether `data` is valid UTF-8 without NUL bytes (a NUL is never valid in JSON text, and
    /// refusing it also refuses UTF-16 and UTF-32 bodies, which the decoder would otherwise
    /// detect and accept).
    static func isUTF8JSONText(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
        }
    }

    /// Whether a JSON string in `data` escapes U+0000 (`\u0000`): one pass that skips every
    /// escape, so an escaped backslash followed by `u0000` is text, not a NUL.
    static func containsEscapedNUL(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                if index + 5 < bytes.count, bytes[index + 1] == UInt8(ascii: "u"),
                    bytes[(index + 2)...(index + 5)].allSatisfy({ $0 == UInt8(ascii: "0") })
                {
                    return true
                }
                index += 2
            }
            return false
        }
    }

    /// Reads the body (413 past ``maxBodySize``) and finds its `trace_id`, falling back to
    /// the `trace_id` query parameter and then to a new one.
    static func read(_ request: Request, context: UMFARequestContext) async throws -> Body {
        let buffer = try await collect(request, timeout: context.bodyReadTimeout)
        return body(Data(buffer: buffer), request: request, context: context)
    }

    /// `data` as a ``Body``, with its trace id found and settled.
    private static func body(_ data: Data, request: Request, context: UMFARequestContext) -> Body {
        let envelope = try? JSONDecoder().decode(TraceEnvelope.self, from: data)
        let traceID = settledTraceID(envelope?.traceID, request: request, context: context)
        return Body(data: data, isObject: envelope != nil, traceID: traceID)
    }

    /// The body's `trace_id` when it is a valid one (settled for the request), else the query's
    /// or a new one.
    private static func settledTraceID(_ given: String?, request: Request, context: UMFARequestContext) -> String {
        guard let given = given.flatMap(TraceID.valid) else { return TraceID.from(request, context: context) }
        context.trace.settle(given)
        return given
    }

    /// The body a middleware already read (``UMFARequestContext/readBody``), else the body
    /// read now.
    static func body(of request: Request, context: UMFARequestContext) async throws -> Body {
        if let body = context.readBody { return body }
        return try await read(request, context: context)
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
    /// `timeout` (a slow client cannot hold a request open).
    ///
    /// One reader task and an event-loop timer that cancels it, rather than a task group
    /// whose second child sleeps: two tasks and a sleep per request, most of it on a path
    /// where the body is already there.
    static func collect(_ request: Request, timeout: Duration) async throws -> ByteBuffer {
        let reader = Task {
            var request = request
            return try await request.collectBody(upTo: maxBodySize)
        }
        let timedOut = TimeoutFlag()
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(
            in: .nanoseconds(Int64(timeout / .nanoseconds(1)))
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
            throw ServiceError(.tooLarge, "The request body is too large (at most \(maxBodySize) bytes)")
        case (_, true):
            throw ServiceError(
                .timeout, "The request body did not arrive within \(timeout.components.seconds) seconds")
        }
    }

    /// Set once the body timeout has fired.
    private final class TimeoutFlag: Sendable {
        private let fired = Atomic(false)

        var isSet: Bool { fired.load(ordering: .acquiring) }

        func set() { fired.store(true, ordering: .releasing) }
    }

    /// The bytes of every JSON answer, errors included: keys sorted, so one answer always
    /// reads the same.
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A JSON response.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A message for a decoding error that names the field.
    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "Malformed request: field \(path(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "Malformed request: the body is not valid JSON"
                : "Malformed request: field \(path(context.codingPath)) is invalid: \(context.debugDescription)"
        default:
            return "Malformed request: the body could not be read"
        }
    }
}
