import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UMFA

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPTransport`` over swift-nio-ssl, on Linux and Apple platforms alike: it presents a
/// client certificate (RFC 8705 §2) and checks the server's certificate chain and public-key
/// pins in the handshake itself, so a refused server never receives a byte of the request.
///
/// ```swift
/// let transport = try TLSTransport(TLSTransportConfiguration(
///     clientIdentity: try .pem(certificatePath: "client.pem", keyPath: "client.key"),
///     pins: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "<the next key's pin>"]))
/// var oauth = OAuthConfiguration(issuer: issuer, clientId: "…", clientAuthentication: .none)
/// oauth.transport = transport
/// ```
///
/// Each request opens its own HTTP/1.1 connection (`Connection: close`): the SDK sends few
/// requests, and a new handshake checks the pins each time.
public struct TLSTransport: HTTPTransport {
    /// The configuration.
    public let configuration: TLSTransportConfiguration
    private let context: NIOSSLContext
    private let verifier: ServerKeyVerifier
    private let group: any EventLoopGroup

    /// A transport; throws when a pin, a root or the client identity is unusable.
    public init(
        _ configuration: TLSTransportConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(TLSTransportError) {
        self.configuration = configuration
        self.verifier = try ServerKeyVerifier(trust: configuration.trust, pins: configuration.pins)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["http/1.1"]
        // NIOSSL matches the name after the callback too; pins-only names nothing (the key is
        // the server's identity), so that second check is off there.
        if case .pinsOnly = configuration.trust { tls.certificateVerification = .noHostnameVerification }
        if let provider = configuration.clientIdentity {
            let identity = try provider.clientIdentity()
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        do {
            self.context = try NIOSSLContext(configuration: tls)
        } catch {
            throw .invalidIdentity("the TLS context could not be made (does the key match the certificate?)")
        }
        self.group = eventLoopGroup
    }

    /// Whether a client identity is configured (then the OAuth requests use the issuer's
    /// mutual-TLS endpoint aliases, RFC 8705 §5).
    public var presentsClientCertificate: Bool { configuration.clientIdentity != nil }

    /// Sends `request` on a new TLS connection and reads the whole answer.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url, url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw TLSTransportError.unsupportedURL(request.url?.absoluteString ?? "no URL")
        }
        let port = url.port ?? 443
        let verdict = VerdictBox()
        let limit = TimeAmount.milliseconds(Int64(max(configuration.timeout, 0.001) * 1000))
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(limit)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(makeTLSHandler(host: host, verdict: verdict))
                        try channel.pipeline.syncOperations.addHandler(ConnectionStageRecorder(verdict))
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw TLSTransportError.connectionFailed(host: host, reason: "\(error)")
        }
        let raw = channel.channel
        let timer = raw.eventLoop.scheduleTask(in: limit) {
            verdict.refuse(.timedOut(host: host))
            raw.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                do {
                    // One write of head, body and end: written part by part, a server that
                    // answered the head and closed (`openssl s_server -www` does) failed the
                    // write of the end, and the answer was lost with it.
                    try await outbound.write(contentsOf: Self.parts(of: request, url: url, host: host, port: port))
                } catch {
                    // The channel closed under the write: the inbound side carries why (the
                    // server's TLS alert, a reset), which says more than "closed channel".
                    for try await _ in inbound {}
                    throw error
                }
                return try await Self.answer(from: inbound, url: url)
            }
        } catch {
            // The handshake's verdict (or the timer) first: it is why the channel closed.
            if let refusal = verdict.refusal { throw refusal }
            // Closed without an error of its own: say how far the connection got.
            let closedCleanly =
                (error as? ChannelError).map { $0 == .ioOnClosedChannel || $0 == .eof } == true
                || (error as? URLError)?.code == .networkConnectionLost
            if closedCleanly {
                throw TLSTransportError.connectionFailed(host: host, reason: "\(verdict.stage) (\(error))")
            }
            throw TLSTransportError.connectionFailed(host: host, reason: "\(error)")
        }
    }

    /// The TLS handler: SNI for a name, the verifier in place of NIOSSL's own check.
    private func makeTLSHandler(host: String, verdict: VerdictBox) throws -> NIOSSLClientHandler {
        let verifier = self.verifier
        let isName = host.rangeOfCharacter(from: CharacterSet.letters) != nil && !host.contains(":")
        return try NIOSSLClientHandler(
            context: context, serverHostname: isName ? host : nil,
            customVerificationCallback: { certificates, promise in
                // The chain and the pins are judged before the handshake ends (RFC 7469 §2.6).
                promise.completeWithTask {
                    if let refusal = await verifier.judge(certificates, host: host) {
                        verdict.refuse(refusal)
                        return .failed
                    }
                    return .certificateVerified
                }
            })
    }

    /// The request's head, body and end; `Connection: close`, `Host` with a non-default port.
    private static func parts(of request: URLRequest, url: URL, host: String, port: Int) -> [HTTPClientRequestPart] {
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var headers = HTTPHeaders()
        let hostText = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: port == 443 ? hostText : "\(hostText):\(port)")
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "host" {
            headers.add(name: name, value: value)
        }
        let body = request.httpBody ?? Data()
        headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), uri: path, headers: headers)
        var parts: [HTTPClientRequestPart] = [.head(head)]
        if !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        parts.append(.end(nil))
        return parts
    }

    /// The largest answer body read (the SDK's answers are a few kilobytes).
    static let maximumAnswerBytes = 16 << 20

    /// Reads the head and the whole body, up to ``maximumAnswerBytes``.
    private static func answer(
        from inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>, url: URL
    ) async throws -> (Data, HTTPURLResponse) {
        var head: HTTPResponseHead?
        var body = ByteBuffer()
        for try await part in inbound {
            switch part {
            case .head(let received):
                head = received
            case .body(var chunk):
                guard body.readableBytes + chunk.readableBytes <= Self.maximumAnswerBytes else {
                    throw URLError(.dataLengthExceedsMaximum)
                }
                body.writeBuffer(&chunk)
            case .end:
                guard let head else { break }
                var fields: [String: String] = [:]
                for (name, value) in head.headers {
                    fields[name] = fields[name].map { $0 + ", " + value } ?? value
                }
                guard
                    let response = HTTPURLResponse(
                        url: url, statusCode: Int(head.status.code), httpVersion: "HTTP/1.1", headerFields: fields)
                else { throw URLError(.badServerResponse) }
                return (Data(body.readableBytesView), response)
            }
        }
        throw URLError(.networkConnectionLost)
    }
}
