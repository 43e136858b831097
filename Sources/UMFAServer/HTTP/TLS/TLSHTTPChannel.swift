import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// The connection a request arrived on, when it arrived over TLS: which listener, and the
/// client certificate the handshake presented. Set for the whole connection by
/// ``TLSHTTPChannel``; ``MutualTLSAliasMiddleware`` moves it onto the request context.
struct TLSConnection: Sendable {
    /// Whether the connection came in on the mutual-TLS endpoint alias listener (RFC 8705 §5).
    let mutualTLSAlias: Bool
    /// The leaf certificate the client presented in the handshake, if any.
    let clientCertificate: PresentedClientCertificate?

    /// The connection of the running request; `nil` over plain HTTP.
    @TaskLocal static var current: TLSConnection?
}

/// A TLS connection that takes the certificate current at its accept (``TLSContexts``, so a
/// reload reaches new handshakes while open connections keep theirs), then speaks HTTP/2 or
/// HTTP/1.1 as ALPN chose (RFC 7301). On the mutual-TLS alias it asks for a client certificate,
/// accepts any (the OAuth layer judges it, RFC 8705 §2), and hands the leaf to every request of
/// the connection.
struct TLSHTTPChannel: HTTPChannelHandler {
    /// What ALPN settled.
    enum Negotiated: Sendable {
        case http1(HTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
    }

    /// The connection until its protocol is known.
    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let contexts: TLSContexts
    let mutualTLSAlias: Bool
    let http1: HTTP1Channel
    let http2: HTTP2Channel

    var responder: Responder { http1.responder }

    init(
        responder: @escaping Responder, contexts: TLSContexts, mutualTLSAlias: Bool,
        configuration: HTTP1Channel.Configuration, idleTimeout: Duration
    ) {
        self.contexts = contexts
        self.mutualTLSAlias = mutualTLSAlias
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
        http2 = HTTP2Channel(
            responder: responder,
            configuration: .init(idleTimeout: idleTimeout, streamConfiguration: configuration))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let http1 = http1
        let http2 = http2
        do {
            let tls =
                mutualTLSAlias
                ? NIOSSLServerHandler(context: contexts.mutualTLS, customVerificationCallback: acceptAnyCertificate)
                : NIOSSLServerHandler(context: contexts.server)
            try channel.pipeline.syncOperations.addHandler(tls)
            let alpn = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result, channel in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { .http1($0) }
                case .negotiated:
                    return channel.close().flatMapThrowing { throw NIOTLSUnexpectedProtocol() }
                }
            }
            try channel.pipeline.syncOperations.addHandler(alpn)
            return channel.eventLoop.makeSucceededFuture(
                Value(negotiated: alpn.protocolNegotiationResult, channel: channel))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            let negotiated = try await value.negotiated.get()
            var certificate: PresentedClientCertificate?
            if mutualTLSAlias, let leaf = try await value.channel.nioSSL_peerCertificate().get() {
                certificate = PresentedClientCertificate(der: try leaf.toDERBytes())
            }
            let connection = TLSConnection(mutualTLSAlias: mutualTLSAlias, clientCertificate: certificate)
            await TLSConnection.$current.withValue(connection) {
                switch negotiated {
                case .http1(let value): await http1.handle(value: value, logger: logger)
                case .http2(let value): await http2.handle(value: value, logger: logger)
                }
            }
        } catch {
            // A failed handshake: the client went away or spoke no acceptable TLS.
            logger.debug("TLS connection not established", metadata: ["error": .string("\(error)")])
        }
    }
}

/// RFC 8705 §2.2: a self-signed certificate is as welcome as a CA-issued one; which one a
/// client may use is the OAuth layer's judgement, per request.
private func acceptAnyCertificate(_: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResult>) {
    promise.succeed(.certificateVerified)
}

/// ALPN settled on a protocol the server never offered.
struct NIOTLSUnexpectedProtocol: Error {}
