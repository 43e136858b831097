import Testing
import UMFAServer

@Suite("Tracing settings and trace context")
struct TracingSettingsTests {
    @Test("traces are off unless the OpenTelemetry variables ask for them")
    func offByDefault() throws {
        #expect(try TracingSettings(environment: [:]).enabled == false)
        #expect(try TracingSettings(environment: ["OTEL_SERVICE_NAME": "umfa"]).enabled == false)
        #expect(try TracingSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "  "]).enabled == false)
    }

    @Test("an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp turns them on; none and OTEL_SDK_DISABLED turn them off")
    func switches() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(try TracingSettings(environment: endpoint).enabled)
        #expect(
            try TracingSettings(environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"]).enabled)
        #expect(try TracingSettings(environment: ["OTEL_TRACES_EXPORTER": "OTLP"]).enabled)
        #expect(
            try TracingSettings(environment: endpoint.merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 }).enabled == false
        )
        #expect(
            try TracingSettings(environment: endpoint.merging(["OTEL_SDK_DISABLED": "TRUE"]) { $1 }).enabled == false)
        #expect(try TracingSettings(environment: endpoint.merging(["OTEL_SDK_DISABLED": "false"]) { $1 }).enabled)
    }

    @Test("an exporter or protocol this build cannot honour stops the start, naming the variable")
    func refusals() throws {
        let grpc = ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]
        let error = #expect(throws: ConfigurationError.self) { try TracingSettings(environment: grpc) }
        #expect(error?.description.contains("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json") == true)
        #expect(throws: ConfigurationError.self) {
            try TracingSettings(environment: ["OTEL_TRACES_EXPORTER": "zipkin"])
        }
        // The traces-specific protocol wins over the general one (OTLP exporter configuration).
        let specific = grpc.merging(["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"]) { $1 }
        #expect(try TracingSettings(environment: specific).enabled)
        // Turned off, nothing else is judged.
        #expect(
            try TracingSettings(environment: ["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
                .enabled == false)
    }

    @Test("the trace id of a traceparent is 32 lowercase hex digits, never all zero (W3C Trace Context §3.2.2.3)")
    func traceIDs() {
        let id = "4bf92f3577b34da6a3ce929d0e0e4736"
        #expect(ServerTracing.traceID(of: "00-\(id)-00f067aa0ba902b7-01") == id)
        #expect(ServerTracing.traceID(of: "00-\(String(repeating: "0", count: 32))-00f067aa0ba902b7-01") == nil)
        #expect(ServerTracing.traceID(of: "00-\(id.uppercased())-00f067aa0ba902b7-01") == nil)
        #expect(ServerTracing.traceID(of: "00-\(id.dropLast())-00f067aa0ba902b7-01") == nil)
        #expect(ServerTracing.traceID(of: "garbage") == nil)
        // Without a tracer there is no current trace: ids stay the server's own UUIDs.
        #expect(ServerTracing.currentTraceID() == nil)
    }

    @Test("a route is recorded as the contract's path template")
    func routeTemplates() {
        #expect(ServerTracing.routeTemplate("/api/admin/applications/:id") == "/api/admin/applications/{id}")
        #expect(
            ServerTracing.routeTemplate("/oidc/:application_id/token") == "/oidc/{application_id}/token")
        #expect(ServerTracing.routeTemplate("/health") == "/health")
    }
}
