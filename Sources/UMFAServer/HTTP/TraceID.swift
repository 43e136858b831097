import Foundation
import Hummingbird
import Synchronization

/// Trace ids: echoed from the request, or a new random UUID.
public enum TraceID {
    /// A new random trace id.
    public static func make() -> String { UUID().uuidString.lowercased() }

    /// The trace id of a request without a JSON body: its `trace_id` query parameter when
    /// valid, else a new one. Recorded in ``TraceScope`` for error answers.
    static func from(_ request: Request) -> String {
        let traceID = request.uri.queryParameters.get("trace_id").flatMap(JSONExchange.validTraceID) ?? make()
        TraceScope.record(traceID)
        return traceID
    }
}

/// The trace id of the request being handled, so an error that is not an ``APIError`` (a
/// storage failure, a bug) is still answered with the trace id the client sent.
enum TraceScope {
    /// Holds one request's trace id once a route has settled it.
    final class Slot: Sendable {
        private let storage = Mutex<String?>(nil)

        var value: String? { storage.withLock { $0 } }

        func set(_ traceID: String) { storage.withLock { $0 = traceID } }
    }

    /// Task-scoped, not global: ``ErrorMiddleware`` binds a fresh slot around each request.
    @TaskLocal static var current: Slot?

    /// Records the request's trace id in the current slot, if any.
    static func record(_ traceID: String) { current?.set(traceID) }
}
