import Logging
import OTel
import ServiceLifecycle
import UMFAServer

/// Installs the OpenTelemetry tracer of `umfa serve` when the standard variables ask for it
/// (``TracingSettings``; docs/operators/tracing.md): spans are batched and exported over
/// OTLP/HTTP by swift-otel, from the variables ``TracingSettings`` judged and passed on. Only
/// traces: metrics stay on `/metrics`, logs on standard error.
enum TracingBootstrap {
    /// How long the last export may take when the server stops, unless `OTEL_BSP_EXPORT_TIMEOUT`
    /// says otherwise: a collector that is down must not outlast an orchestrator's grace period.
    static let exportTimeout = Duration.seconds(5)

    /// The exporter's service, to run beside the server, or `nil` when tracing is off.
    static func start(_ settings: TracingSettings, logger: Logger) throws -> (any Service)? {
        guard settings.enabled else { return nil }
        var configuration = OTel.Configuration.default
        if settings.needsServiceName { configuration.serviceName = "umfa" }
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.otlpExporter.headers = settings.headers
        configuration.traces.batchSpanProcessor.exportTimeout = exportTimeout
        // The exporter's own news at warning and above (a failed export is one, a setting read
        // is not), unless OTEL_LOG_LEVEL asks for more.
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        do {
            // Bootstraps the tracer only: logs and metrics are off, and the environment it reads
            // holds no OTEL_SDK_DISABLED to turn them on.
            return try OTel.bootstrap(configuration: configuration, environment: settings.exporterEnvironment)
        } catch {
            throw ConfigurationError("OpenTelemetry traces: \(error)")
        }
    }

    /// What puts the current span's `trace_id` and `span_id` into every log entry.
    static var logMetadata: Logger.MetadataProvider { OTel.makeLoggingMetadataProvider() }
}
