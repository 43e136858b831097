import Foundation
import Tracing
import UMFAStorage

/// The server's side of distributed tracing (docs/operators/tracing.md): whether a tracer is
/// installed, the W3C Trace Context (`traceparent`) of the current span, and spans that carry
/// it to another process.
package enum ServerTracing {
    /// Whether `umfa serve` installed a tracer. Read where the server is built, so a server
    /// without tracing adds no middleware and no statement spans.
    package static var isOn: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }

    /// The W3C `traceparent` of the current span (W3C Trace Context §3.2), or `nil` without one.
    package static func currentTraceparent() -> String? { TraceParent.current() }

    /// The trace id of the current span: 32 lowercase hex digits, or `nil` without a span.
    package static func currentTraceID() -> String? {
        currentTraceparent().flatMap(traceID(of:))
    }

    /// The trace id of a `traceparent` value (`version-traceid-parentid-flags`), when valid:
    /// 32 lowercase hex digits, not all zero (W3C Trace Context §3.2.2.3).
    package static func traceID(of traceparent: String) -> String? {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[1].utf8.count == 32,
            parts[1].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
            parts[1].utf8.contains(where: { $0 != 0x30 })
        else { return nil }
        return String(parts[1])
    }

    /// Hummingbird's route (`/v1/users/:user_id`) as the contract declares it
    /// (`/v1/users/{user_id}`): a span's `http.route`.
    package static func routeTemplate(_ route: String) -> String {
        route.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.first == ":" ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
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
    /// request that queued the call); inside, ``currentTraceparent()`` is what to send with it.
    package static func outbound<Value>(
        _ name: String, continuing traceparent: String?, _ body: (any Span) async throws -> Value
    ) async rethrows -> Value {
        try await withSpan(name, context: context(continuing: traceparent), ofKind: .client) { try await body($0) }
    }
}
