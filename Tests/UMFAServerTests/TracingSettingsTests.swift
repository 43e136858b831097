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

    @Test("propagators, samplers, ratios and endpoints the exporter would crash on or ignore stop the start")
    func judgedBeforeTheExporter() throws {
        let on = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        func settings(_ extra: [String: String]) throws -> TracingSettings {
            try TracingSettings(environment: on.merging(extra) { $1 })
        }
        // The specification's default list: baggage is dropped, tracecontext kept.
        #expect(
            try settings(["OTEL_PROPAGATORS": "tracecontext,baggage"]).exporterEnvironment["OTEL_PROPAGATORS"]
                == "tracecontext")
        #expect(try settings([:]).exporterEnvironment["OTEL_PROPAGATORS"] == "tracecontext")
        for refused in [
            ["OTEL_PROPAGATORS": "b3"], ["OTEL_PROPAGATORS": "none"], ["OTEL_PROPAGATORS": "baggage"],
            ["OTEL_TRACES_SAMPLER": "jaeger_remote"], ["OTEL_TRACES_SAMPLER": "xray"],
            ["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1.5"],
            ["OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "half"],
            ["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"],
            ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://c/v1/traces"],
        ] {
            #expect(throws: ConfigurationError.self, "\(refused)") { try settings(refused) }
        }
        #expect(try settings(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"]).enabled)
    }

    @Test(
        "the collector's headers are parsed and percent-decoded here and never passed as a variable, nor named in an error"
    )
    func headers() throws {
        let on = ["OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector", "OTEL_SDK_DISABLED": "false"]
        let settings = try TracingSettings(
            environment: on.merging(["OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cr%3Dt, Authorization=Basic%20YWI="]) {
                $1
            })
        #expect(settings.headers.map(\.0) == ["api-key", "Authorization"])
        #expect(settings.headers.map(\.1) == ["s3cr=t", "Basic YWI="])
        #expect(settings.exporterEnvironment["OTEL_EXPORTER_OTLP_HEADERS"] == nil)
        #expect(settings.exporterEnvironment["OTEL_SDK_DISABLED"] == nil, "no variable may turn logs or metrics on")
        #expect(settings.exporterEnvironment["OTEL_EXPORTER_OTLP_ENDPOINT"] == "https://collector")
        let error = #expect(throws: ConfigurationError.self) {
            try TracingSettings(
                environment: on.merging(["OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key: hunter2"]) { $1 })
        }
        #expect(error?.description.contains("OTEL_EXPORTER_OTLP_TRACES_HEADERS") == true)
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test("UMFA names the service only when neither OTEL_SERVICE_NAME nor a service.name attribute does")
    func serviceName() throws {
        let on = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]
        #expect(try TracingSettings(environment: on).needsServiceName)
        #expect(try !TracingSettings(environment: on.merging(["OTEL_SERVICE_NAME": "idp"]) { $1 }).needsServiceName)
        let attributes = ["OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod, service.name=idp"]
        #expect(try !TracingSettings(environment: on.merging(attributes) { $1 }).needsServiceName)
    }

    @Test("only one well-formed traceparent reaches the instrument, with a tracestate only when that is well formed")
    func carriers() {
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(ServerTracing.carrier(traceparent: [parent], tracestate: [])?.traceparent == parent)
        #expect(ServerTracing.carrier(traceparent: [parent, parent], tracestate: []) == nil)
        #expect(ServerTracing.carrier(traceparent: ["x"], tracestate: []) == nil)
        #expect(
            ServerTracing.carrier(
                traceparent: ["01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"], tracestate: []) == nil)
        #expect(
            ServerTracing.carrier(
                traceparent: ["00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"], tracestate: []) == nil)
        let state = ServerTracing.carrier(traceparent: [parent], tracestate: ["vendor=abc,t61@dd=x-1"])
        #expect(state?.tracestate == "vendor=abc,t61@dd=x-1")
        for bad in ["no-equals", "Upper=1", "k=v=w", String(repeating: "k=v,", count: 40) + "k=v"] {
            let kept = ServerTracing.carrier(traceparent: [parent], tracestate: [bad])
            #expect(kept?.traceparent == parent && kept?.tracestate == nil, "\(bad)")
        }
    }
}
