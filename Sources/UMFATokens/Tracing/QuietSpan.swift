import Tracing

/// Spans of the server's own work (docs/operators/tracing.md) that record a failure by the
/// error's type and the error status only. The tracing API's `withSpan` records the error's
/// whole description as an event, and a ceremony's or a statement's error can quote what a
/// client sent or a value bound to the statement.
package enum QuietSpan {
    /// Runs `body` in a span named `name`, a child of `context` (the current one by default).
    package static func run<Value>(
        _ name: String, context: ServiceContext? = nil, ofKind kind: SpanKind = .internal,
        _ body: (any Span) async throws -> Value
    ) async rethrows -> Value {
        let span = startSpan(name, context: context ?? ServiceContext.current ?? .topLevel, ofKind: kind)
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context) { try await body(span) }
        } catch {
            failed(span, error)
            throw error
        }
    }

    /// Runs `body` in a span named `name`, a child of the current one.
    package static func run<Value>(
        _ name: String, ofKind kind: SpanKind = .internal, _ body: (any Span) throws -> Value
    ) rethrows -> Value {
        let span = startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind)
        defer { span.end() }
        do {
            return try ServiceContext.withValue(span.context) { try body(span) }
        } catch {
            failed(span, error)
            throw error
        }
    }

    private static func failed(_ span: any Span, _ error: any Error) {
        span.attributes["error.type"] = String(reflecting: type(of: error))
        span.setStatus(SpanStatus(code: .error))
    }
}
