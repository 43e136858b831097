import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy that holds every byte it relays for a set delay in each direction: the network
/// between UMFA and PostgreSQL in `scripts/bench/roundtrips.py`'s latencies (a 1 ms round trip is
/// `--delay-ms 0.5`). One event loop relays both directions of every connection; a chunk read at
/// `t` is written at `t + delay`, in the order read, by a timer of the loop (a `timerfd` on Linux,
/// so the delay is kept to microseconds, where a sleeping Python thread overshot it and the
/// proxy's own cost per round trip grew with the machine's load).
///
/// Standard output: one JSON line, `{"listen": "127.0.0.1:PORT"}`, once it listens. Standard
/// input: `delay MS` sets the delay of chunks read from then on and answers `ok MS`; the proxy
/// ends when standard input closes.
struct DelayProxyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delay-proxy", abstract: "A TCP proxy that delays each direction (stdin: `delay MS`).")

    @Option(help: "The upstream server, HOST:PORT.") var upstream: String
    @Option(help: "The delay of each direction, ms.") var delayMs: Double = 0
    @Option(help: "The port to listen on, on 127.0.0.1 (0: any free one).") var port: Int = 0

    /// The longest delay taken, ms: a benchmark's network, not a timeout test.
    static let longestDelay = 10_000.0

    func validate() throws {
        guard (0...Self.longestDelay).contains(delayMs) else {
            throw ValidationError("--delay-ms must be from 0 to \(Self.longestDelay)")
        }
    }

    func run() throws {
        guard let colon = upstream.lastIndex(of: ":"), let upstreamPort = Int(upstream[upstream.index(after: colon)...])
        else { throw ValidationError("--upstream must be HOST:PORT") }
        let upstreamHost = String(upstream[..<colon])
        let delay = ProxyDelay(milliseconds: delayMs)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                // The upstream connection on the same loop, so the two relays share no thread.
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: upstreamHost, port: upstreamPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(DelayedRelay(peer: outbound, delay: delay))
                        try outbound.pipeline.syncOperations.addHandler(DelayedRelay(peer: inbound, delay: delay))
                        try inbound.syncOptions?.setOption(.autoRead, value: true)
                    }
            }
            .bind(host: "127.0.0.1", port: port).wait()
        say(#"{"listen": "127.0.0.1:\#(server.localAddress?.port ?? 0)"}"#)
        while let line = readLine() {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "delay", let milliseconds = Double(words[1]),
                (0...Self.longestDelay).contains(milliseconds)
            {
                delay.set(milliseconds: milliseconds)
                say("ok \(milliseconds)")
            } else {
                say("error: expected `delay MS`, MS from 0 to \(Self.longestDelay)")
            }
        }
        try server.close().wait()
        try group.syncShutdownGracefully()
    }

    /// One line on standard output, written at once (the driver waits for it).
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The delay in force, read by every relay at each chunk it reads.
final class ProxyDelay: Sendable {
    private let nanoseconds: Atomic<Int64>

    init(milliseconds: Double) {
        nanoseconds = Atomic(Self.nanoseconds(milliseconds))
    }

    func set(milliseconds: Double) {
        nanoseconds.store(Self.nanoseconds(milliseconds), ordering: .relaxed)
    }

    var amount: TimeAmount { .nanoseconds(nanoseconds.load(ordering: .relaxed)) }

    private static func nanoseconds(_ milliseconds: Double) -> Int64 { Int64((milliseconds * 1_000_000).rounded()) }
}

/// One direction of one connection: what its channel reads goes to `peer`, each chunk `delay`
/// after it was read and in the order read; with no delay and nothing waiting, at once. When
/// its channel closes, what is still waiting is sent first, then `peer` is closed once written
/// (a client's Terminate, a server's last error). While `peer` cannot take more, its channel
/// stops reading (`channelWritabilityChanged` on the relay of the other direction).
final class DelayedRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let delay: ProxyDelay
    private var waiting = CircularBuffer<(due: NIODeadline, chunk: ByteBuffer)>()
    private var timer: Scheduled<Void>?
    /// Set when this relay's channel has closed: `peer` closes once `waiting` is sent.
    private var closing = false

    init(peer: Channel, delay: ProxyDelay) {
        self.peer = peer
        self.delay = delay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let chunk = unwrapInboundIn(data)
        let amount = delay.amount
        if amount == .zero, waiting.isEmpty {
            peer.writeAndFlush(chunk, promise: nil)
            return
        }
        waiting.append((.now() + amount, chunk))
        if timer == nil { arm(context.eventLoop) }
    }

    /// A timer for the chunk at the head; it sends every chunk due by then.
    private func arm(_ loop: EventLoop) {
        guard let head = waiting.first else { return }
        let relay = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleTask(deadline: head.due) { relay.value.sendDue(loop) }
    }

    private func sendDue(_ loop: EventLoop) {
        timer = nil
        let now = NIODeadline.now()
        var sent = false
        while let head = waiting.first, head.due <= now {
            peer.write(waiting.removeFirst().chunk, promise: nil)
            sent = true
        }
        if sent { peer.flush() }
        if closing, waiting.isEmpty {
            closePeerAfterWrites()
        } else {
            arm(loop)
        }
    }

    /// Closes `peer` once everything written to it so far has gone out: writes complete in
    /// order, so an empty write's completion follows theirs.
    private func closePeerAfterWrites() {
        let peer = peer
        peer.writeAndFlush(peer.allocator.buffer(capacity: 0)).whenComplete { _ in peer.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        if waiting.isEmpty { closePeerAfterWrites() }
        context.fireChannelInactive()
    }

    /// This relay's channel is the other direction's `peer`: while it cannot take more, that
    /// direction's channel stops reading.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        try? peer.syncOptions?.setOption(.autoRead, value: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
