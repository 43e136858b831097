import Foundation

/// Whether and how `umfa serve` exports traces, read from the OpenTelemetry SDK's standard
/// variables (docs/operators/tracing.md). Off unless they ask for it: no variable set means no
/// tracer, and then no span is made at all.
///
/// Every variable is judged here, before the exporter sees it: a value the exporter would crash
/// on, ignore, or quietly turn into something else (a `b3` propagator, a remote sampler, a
/// ratio that is not one, an endpoint that is not a URL) stops the start with a
/// ``ConfigurationError`` naming the variable, never its value. The exporter then gets only the
/// variables it may read (``exporterEnvironment``): the collector's headers, which usually hold
/// an API key, go to it as values (``headers``) so that nothing ever logs them.
package struct TracingSettings: Sendable {
    /// Whether traces are exported.
    package var enabled = false
    /// The `OTEL_*` variables the exporter reads: the ones judged here, without the headers
    /// and with `OTEL_PROPAGATORS` reduced to `tracecontext`.
    package var exporterEnvironment: [String: String] = [:]
    /// The collector's headers (`OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else `…_HEADERS`), values
    /// percent-decoded (OTLP exporter configuration, "Specifying headers via environment variables").
    package var headers: [(String, String)] = []
    /// Whether neither `OTEL_SERVICE_NAME` nor a `service.name` resource attribute names the
    /// service, so UMFA names it `umfa`.
    package var needsServiceName = true

    /// The samplers of the OpenTelemetry SDK specification that this exporter implements.
    static let samplers: Set<String> = [
        "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off",
        "parentbased_traceidratio",
    ]

    /// Reads the OpenTelemetry variables of `environment`:
    /// - `OTEL_SDK_DISABLED=true` turns everything off;
    /// - `OTEL_TRACES_EXPORTER` is `otlp` (on) or `none` (off); unset, traces are on when an
    ///   OTLP endpoint is named (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT`);
    /// - the protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`)
    ///   is `http/protobuf` (the default) or `http/json`: this build exports over HTTP only;
    /// - `OTEL_PROPAGATORS` names `tracecontext` (W3C Trace Context), alone or with `baggage`,
    ///   which is not propagated;
    /// - `OTEL_TRACES_SAMPLER` is one of ``samplers``, with a ratio in [0, 1] for the ratio ones.
    package init(environment: [String: String]) throws {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                return nil
            }
            return text
        }
        if value("OTEL_SDK_DISABLED")?.lowercased() == "true" { return }
        switch value("OTEL_TRACES_EXPORTER")?.lowercased() {
        case "none": return
        case "otlp": enabled = true
        case nil:
            enabled = value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
        case let other?:
            throw ConfigurationError("OTEL_TRACES_EXPORTER must be otlp or none, not \"\(other)\"")
        }
        guard enabled else { return }

        if let name = ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"].first(where: {
            value($0) != nil
        }), let wire = value(name)?.lowercased(), wire != "http/protobuf", wire != "http/json" {
            throw ConfigurationError(
                "\(name) must be http/protobuf or http/json, not \"\(wire)\": UMFA exports OTLP over HTTP only")
        }
        for name in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] {
            guard let endpoint = value(name) else { continue }
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased()),
                url.host?.isEmpty == false
            else {
                throw ConfigurationError("\(name) must be an http or https URL")
            }
        }
        let propagators = try Self.propagators(value("OTEL_PROPAGATORS"))
        let sampler = value("OTEL_TRACES_SAMPLER")?.lowercased()
        if let sampler, !Self.samplers.contains(sampler) {
            throw ConfigurationError(
                "OTEL_TRACES_SAMPLER must be one of \(Self.samplers.sorted().joined(separator: ", ")), not \"\(sampler)\""
            )
        }
        if let argument = value("OTEL_TRACES_SAMPLER_ARG"), sampler?.hasSuffix("traceidratio") == true {
            guard let ratio = Double(argument), (0...1).contains(ratio) else {
                throw ConfigurationError("OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1")
            }
        }
        let headersName = ["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"].first {
            value($0) != nil
        }
        if let headersName, let text = value(headersName) {
            guard let parsed = Self.headers(text) else {
                throw ConfigurationError("\(headersName) must be a list of name=value pairs separated by commas")
            }
            headers = parsed
        }
        let resource = value("OTEL_RESOURCE_ATTRIBUTES") ?? ""
        needsServiceName =
            value("OTEL_SERVICE_NAME") == nil
            && !resource.split(separator: ",").contains {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("service.name=")
            }

        for (name, text) in environment where name.hasPrefix("OTEL_") {
            switch name {
            case "OTEL_SDK_DISABLED", "OTEL_PROPAGATORS", "OTEL_EXPORTER_OTLP_HEADERS",
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS":
                continue
            default: exporterEnvironment[name] = text
            }
        }
        exporterEnvironment["OTEL_PROPAGATORS"] = propagators
    }

    /// `tracecontext` when `list` names it (or is unset); `baggage` beside it is dropped.
    static func propagators(_ list: String?) throws -> String {
        let names = (list ?? "tracecontext").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard names.contains("tracecontext"), names.allSatisfy({ $0 == "tracecontext" || $0 == "baggage" }) else {
            throw ConfigurationError(
                "OTEL_PROPAGATORS must name tracecontext (and may name baggage, which UMFA does not propagate)")
        }
        return "tracecontext"
    }

    /// The `name=value` pairs of an OTLP headers variable, values percent-decoded; `nil` when
    /// a pair has no `=`, an empty or non-token name, or a value that does not decode.
    static func headers(_ text: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for pair in text.split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let encoded = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenCharacter),
                let decoded = encoded.removingPercentEncoding, !decoded.contains(where: { $0.isNewline })
            else { return nil }
            pairs.append((name, decoded))
        }
        return pairs
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }
}
