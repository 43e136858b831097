import Foundation
import Tracing
import UMFAStorage
import UMFATokens

/// The server's side of distributed tracing (docs/operators/tracing.md): whether a tracer is
/// installed, the W3C Trace Context (`traceparent`) of the current span, and spans that carry
/// it to another process.
package enum ServerTracing {
    /// Whether `umfa serve` installed a tracer. Read where the server is built, so a server
    /// without tracing adds no middleware and no statement spans.
    package static var isOn: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }

    /// The trace id of the current span: 32 lowercase hex digits, or `nil` without a span.
    package static func currentTraceID() -> String? {
        TraceParent.current().flatMap(traceID(of:))
    }

    /// The trace id of a version-00 `traceparent` (`00-traceid-parentid-flags`), when the
    /// whole value is valid (W3C Trace Context §3.2.2): a trace id of 32 and a parent id of 16
    /// lowercase hex digits, neither all zero, and two hex digits of flags.
    package static func traceID(of traceparent: String) -> String? {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00", isHex(parts[1], count: 32), isHex(parts[2], count: 16),
            isHex(parts[3], count: 2)
        else { return nil }
        return String(parts[1])
    }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
            && (count == 2 || text.utf8.contains { $0 != 0x30 })
    }

    /// The Trace Context of a request's headers, for the instrument: its one `traceparent` when
    /// valid, and its `tracestate` when also well formed (W3C Trace Context §3.3.1: at most 32
    /// `key=value` members of printable ASCII, 512 characters in all); `nil` without a valid
    /// `traceparent`, so a new trace starts.
    package static func carrier(traceparent: [String], tracestate: [String]) -> HeaderCarrier? {
        guard traceparent.count == 1, let parent = traceparent.first, traceID(of: parent) != nil else { return nil }
        let state = tracestate.joined(separator: ",")
        let members = state.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let wellFormed =
            !state.isEmpty && state.utf8.count <= 512 && members.count <= 32
            && members.allSatisfy { member in
                guard let equals = member.firstIndex(of: "="), equals != member.startIndex else { return false }
                let key = member[..<equals]
                let value = member[member.index(after: equals)...]
                return key.utf8.allSatisfy { Self.isKeyByte($0) } && !value.isEmpty
                    && value.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7e && $0 != 0x2c && $0 != 0x3d }
            }
        return HeaderCarrier(traceparent: parent, tracestate: wellFormed ? state : nil)
    }

    /// `lcalpha`, `DIGIT`, `_`, `-`, `*`, `/` and `@` (a tenant key's separator).
    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
            || [0x5f, 0x2d, 0x2a, 0x2f, 0x40].contains(byte)
    }

    /// Hummingbird's route (`/v1/users/:user_id`) as the contract declares it
    /// (`/v1/users/{user_id}`): a span's `http.route`.
    package static func routeTemplate(_ route: String) -> String {
        route.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.first == ":" ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }

    /// Records an outbound call's outcome on its span: the answer's status (an error unless
    /// 2xx), or `nil` when there was none; and the host it went to, never its path or query.
    package static func answered(_ span: any Span, status: Int?, host: String?) {
        span.attributes["server.address"] = host
        if let status { span.attributes["http.response.status_code"] = status }
        if let status, (200..<300).contains(status) { return }
        span.attributes["error.type"] = status.map(String.init) ?? "unreachable"
        span.setStatus(SpanStatus(code: .error))
    }

    /// The context a stored `traceparent` names, for work done later on its behalf (an outbox
    /// delivery); the top level when there is none or it is not valid.
    package static func context(continuing traceparent: String?) -> ServiceContext {
        var context = ServiceContext.topLevel
        if let traceparent {
            InstrumentationSystem.instrument.extract(
                HeaderCarrier(traceparent: traceparent), into: &context, using: HeaderCarrier.Reader())
        }
        return context
    }

    /// Runs `body` in a client span named `name` that continues the trace of `traceparent` (the
    /// request that queued the call); inside, `TraceParent.current()` is what to send with it.
    package static func outbound<Value>(
        _ name: String, continuing traceparent: String?, _ body: (any Span) async throws -> Value
    ) async rethrows -> Value {
        try await QuietSpan.run(name, context: context(continuing: traceparent), ofKind: .client, body)
    }
}
