import Foundation
import Hummingbird
import Synchronization
import UMFAEncoding

/// Trace ids: echoed from the request, else the id of the trace the request is part of when
/// the server traces (docs/operators/tracing.md), else a new random UUID.
package enum TraceID {
    /// The current span's trace id when the server traces, else a new random one.
    package static func make() -> String { ServerTracing.currentTraceID() ?? SecureRandom.uuidString() }

    /// The trace id of a request without a JSON body: its `trace_id` query parameter when
    /// valid, else a new one; settled on the context for error answers.
    static func from(_ request: Request, context: UMFARequestContext) -> String {
        let traceID = request.uri.queryParameters.get("trace_id").flatMap(valid) ?? make()
        context.trace.settle(traceID)
        return traceID
    }

    /// A client's trace id, accepted when it is short printable ASCII.
    static func valid(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 128, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            return nil
        }
        return text
    }
}

/// One request's trace id once it is settled, shared by the route and ``ErrorMiddleware``
/// through the request context (contexts are values; this slot is the one shared part).
final class TraceSlot: Sendable {
    private let storage = Mutex<String?>(nil)

    /// The settled trace id, if any.
    var value: String? { storage.withLock { $0 } }

    /// Settles the trace id; the first one wins.
    func settle(_ traceID: String) { storage.withLock { if $0 == nil { $0 = traceID } } }
}
