import NIOCore
import NIOTLS

/// How far one of ``TLSTransport``'s connections got: a connection that closes without an
/// error (the server's TCP FIN, or its `close_notify`) is then reported with the stage it
/// ended at, not as "I/O on closed channel".
enum ConnectionStage: Int, Comparable, Sendable, CustomStringConvertible {
    case connected
    case handshakeCompleted
    case answering

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String {
        switch self {
        case .connected: "the server closed the connection during the TLS handshake, without an alert"
        case .handshakeCompleted: "the server closed the connection after the TLS handshake, before answering"
        case .answering: "the server closed the connection while answering"
        }
    }
}

/// Sits after the TLS handler and notes, in `verdict`, the handshake's end and the first bytes
/// of the answer; passes everything on unchanged.
final class ConnectionStageRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let verdict: VerdictBox

    init(_ verdict: VerdictBox) { self.verdict = verdict }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        verdict.reach(.answering)
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { verdict.reach(.handshakeCompleted) }
        context.fireUserInboundEventTriggered(event)
    }
}
