import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// The listeners `umfa serve` runs: plain HTTP/1.1 by default; with TLS configured, HTTPS with
/// HTTP/2 by ALPN, the certificate reloader, and the mutual-TLS endpoint alias listener when a
/// port is set for it (RFC 8705 §5).
struct Listeners {
    let configuration: ServerConfiguration
    /// The current TLS contexts; `nil` over plain HTTP.
    let contexts: TLSContexts?

    /// Loads the certificate and key when TLS is configured; files that do not load stop the
    /// start with a ``ConfigurationError``.
    init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        contexts = try configuration.tls.map(TLSContexts.init(serving:))
    }

    private var http1: HTTP1Channel.Configuration {
        .init(idleTimeout: .milliseconds(configuration.idleTimeout.wholeMilliseconds))
    }

    /// The main listener.
    var main: HTTPServerBuilder {
        guard let contexts else { return .http1(configuration: http1) }
        let http1 = http1
        let idleTimeout = configuration.idleTimeout
        return HTTPServerBuilder { responder in
            TLSHTTPChannel(
                responder: responder, contexts: contexts, mutualTLSAlias: false, configuration: http1,
                idleTimeout: idleTimeout)
        }
    }

    /// The services TLS adds: the reloader and the alias listener (answering through the same
    /// router, whose ``MutualTLSAliasMiddleware`` limits it to its endpoints).
    func services(router: Router<UMFARequestContext>, logger: Logger) -> [any Service] {
        guard let contexts else { return [] }
        var services: [any Service] = [TLSCertificateReloader(contexts: contexts, logger: logger)]
        if let port = contexts.serving.mutualTLSPort {
            let http1 = http1
            let idleTimeout = configuration.idleTimeout
            let alias = HTTPServerBuilder { responder in
                TLSHTTPChannel(
                    responder: responder, contexts: contexts, mutualTLSAlias: true, configuration: http1,
                    idleTimeout: idleTimeout)
            }
            services.append(
                Application(
                    router: router, server: alias,
                    configuration: .init(address: .hostname(configuration.host, port: port), serverName: "UMFA"),
                    logger: logger))
        }
        return services
    }
}
