import Tracing

/// The W3C Trace Context (`traceparent`, W3C Trace Context §3.2) of the current span, as the
/// installed instrument writes it: kept with an outbox row, so its delivery, made later and
/// maybe by another instance, continues the trace of the request that queued it
/// (docs/operators/tracing.md). `nil` when the server does not trace.
package enum TraceParent {
    /// The current span's `traceparent`, or `nil`.
    package static func current() -> String? {
        guard let context = ServiceContext.current else { return nil }
        var carrier = HeaderCarrier()
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: HeaderCarrier.Writer())
        return carrier.traceparent
    }
}

/// The Trace Context headers, as an instrument reads and writes them.
package struct HeaderCarrier: Sendable {
    /// `traceparent`.
    package var traceparent: String?
    /// `tracestate`.
    package var tracestate: String?

    /// A carrier holding these headers.
    package init(traceparent: String? = nil, tracestate: String? = nil) {
        self.traceparent = traceparent
        self.tracestate = tracestate
    }

    /// Writes the headers an instrument injects.
    package struct Writer: Injector {
        /// A writer.
        package init() {}
        /// Keeps `value` when `key` is one of the Trace Context headers.
        package func inject(_ value: String, forKey key: String, into carrier: inout HeaderCarrier) {
            switch key.lowercased() {
            case "traceparent": carrier.traceparent = value
            case "tracestate": carrier.tracestate = value
            default: break
            }
        }
    }

    /// Reads the headers an instrument extracts.
    package struct Reader: Extractor {
        /// A reader.
        package init() {}
        /// The header `key`, when it is one of the Trace Context headers.
        package func extract(key: String, from carrier: HeaderCarrier) -> String? {
            switch key.lowercased() {
            case "traceparent": carrier.traceparent
            case "tracestate": carrier.tracestate
            default: nil
            }
        }
    }
}
