import Foundation

/// Whether `umfa serve` exports traces, read from the OpenTelemetry SDK's standard variables
/// (docs/operators/tracing.md). Off unless they ask for it: no variable set means no tracer, and
/// then no span is made at all.
package struct TracingSettings: Sendable, Equatable {
    /// Whether traces are exported.
    package var enabled: Bool

    /// Reads the OpenTelemetry variables of `environment`:
    /// - `OTEL_SDK_DISABLED=true` turns everything off;
    /// - `OTEL_TRACES_EXPORTER` is `otlp` (on) or `none` (off); unset, traces are on when an
    ///   OTLP endpoint is named (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT`);
    /// - the protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`)
    ///   is `http/protobuf` (the default) or `http/json`: this build exports over HTTP only.
    ///
    /// A value outside these stops the start with a ``ConfigurationError`` naming it, rather
    /// than a server that runs without the traces its operator asked for.
    package init(environment: [String: String]) throws {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                return nil
            }
            return text.lowercased()
        }
        if let disabled = value("OTEL_SDK_DISABLED"), disabled == "true" {
            enabled = false
            return
        }
        switch value("OTEL_TRACES_EXPORTER") {
        case "none": enabled = false
        case "otlp": enabled = true
        case nil:
            enabled = value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
        case let other?:
            throw ConfigurationError("OTEL_TRACES_EXPORTER must be otlp or none, not \"\(other)\"")
        }
        guard enabled else { return }
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            guard let wire = value(name) else { continue }
            guard wire == "http/protobuf" || wire == "http/json" else {
                throw ConfigurationError(
                    "\(name) must be http/protobuf or http/json, not \"\(wire)\": UMFA exports OTLP over HTTP only")
            }
            break
        }
    }
}
