import Logging
import OTel
import ServiceLifecycle
import Tracing
import UMFAServer

/// Installs the OpenTelemetry tracer of `umfa serve` when the standard variables ask for it
/// (``TracingSettings``; docs/operators/tracing.md): spans are batched and exported over
/// OTLP/HTTP by swift-otel, which reads the endpoint, protocol, service name and sampler from
/// the same variables. Only traces: metrics stay on `/metrics`, logs on standard error.
enum TracingBootstrap {
    /// The exporter's service, to run beside the server, or `nil` when tracing is off.
    static func start(environment: [String: String], logger: Logger) throws -> (any Service)? {
        guard try TracingSettings(environment: environment).enabled else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "umfa"
        configuration.traces.enabled = true
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        // The exporter's own news at warning and above: a failed export is one, a setting read is not.
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(backend.factory)
            return backend.service
        } catch {
            throw ConfigurationError("OpenTelemetry traces: \(error)")
        }
    }

    /// What puts the current span's `trace_id` and `span_id` into every log entry.
    static var logMetadata: Logger.MetadataProvider { OTel.makeLoggingMetadataProvider() }
}
