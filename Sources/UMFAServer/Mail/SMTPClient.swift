import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Sends one message to a mail server (RFC 5321) over SwiftNIO: the greeting, `EHLO`, `STARTTLS`
/// (RFC 3207) when the server offers it or the settings require it, `AUTH PLAIN` or `LOGIN`
/// (RFC 4954) only over TLS, `MAIL FROM`, `RCPT TO`, `DATA` (dot-stuffed) and `QUIT`.
///
/// A connection serves one message: mail is rare (a code, a notice), and a fresh connection has
/// no state to get wrong. Failures are ``SMTPFailure``: permanent (a 5xx answer: the message
/// will never go) or to retry (a 4xx answer, a network or TLS failure, a timeout).
struct SMTPClient: Sendable {
    let settings: MailSettings
    let group: any EventLoopGroup

    /// The name this host gives in `EHLO`.
    static let heloName = "umfa.localhost"

    /// Sends `message` (the whole RFC 5322 text, ``MailMessage/rendered``) to `recipient`.
    func send(message: String, to recipient: String) async throws {
        let deadline = ContinuousClock.now + settings.timeout
        let connection = try await SMTPConnection.open(settings, group: group)
        do {
            try await withDeadline(deadline) {
                try await converse(connection, message: message, recipient: recipient)
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func converse(_ connection: SMTPConnection, message: String, recipient: String) async throws {
        // Step 1 (RFC 5321 §4.3.1): the greeting.
        try await connection.reply().expect(220, "the greeting")
        var extensions = try await connection.command("EHLO \(Self.heloName)").expect(250, "EHLO").lines
        // Step 2 (RFC 3207 §4): STARTTLS, then EHLO again over TLS.
        if settings.security != .implicitTLS {
            let offered = extensions.contains { $0.uppercased().hasPrefix("STARTTLS") }
            if offered {
                try await connection.command("STARTTLS").expect(220, "STARTTLS")
                try await connection.startTLS(settings)
                extensions = try await connection.command("EHLO \(Self.heloName)").expect(250, "EHLO").lines
            } else if settings.security == .startTLSRequired {
                throw SMTPFailure(permanent: false, "the mail server does not offer STARTTLS, which is required")
            }
        }
        // Step 3 (RFC 4954): authenticate, never in plaintext.
        if let username = settings.username, let password = settings.password {
            guard connection.isEncrypted else {
                throw SMTPFailure(permanent: false, "the mail server offers no TLS: the password is not sent")
            }
            let mechanisms = Set(
                extensions.filter { $0.uppercased().hasPrefix("AUTH") }
                    .flatMap { $0.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).dropFirst() }
                    .map(String.init))
            if mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN") {
                let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
                try await connection.command("AUTH PLAIN \(token)").expect(235, "AUTH PLAIN")
            } else {
                try await connection.command("AUTH LOGIN").expect(334, "AUTH LOGIN")
                try await connection.command(Data(username.utf8).base64EncodedString())
                    .expect(334, "AUTH LOGIN")
                try await connection.command(Data(password.utf8).base64EncodedString())
                    .expect(235, "AUTH LOGIN")
            }
        }
        // Step 4 (RFC 5321 §3.3): the envelope and the message.
        try await connection.command("MAIL FROM:<\(settings.fromAddress)>").expect(250, "MAIL FROM")
        try await connection.command("RCPT TO:<\(recipient)>").expect(250, "RCPT TO", also: [251])
        try await connection.command("DATA").expect(354, "DATA")
        try await connection.data(message).expect(250, "the message")
        _ = try? await connection.command("QUIT")
    }

    private func withDeadline<Value: Sendable>(
        _ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next(), let value else {
                throw SMTPFailure(permanent: false, "the mail server did not finish within \(settings.timeout)")
            }
            return value
        }
    }
}

/// A delivery that failed: `permanent` when the server refused with a 5xx answer.
struct SMTPFailure: Error, CustomStringConvertible {
    let permanent: Bool
    let description: String

    init(permanent: Bool, _ description: String) {
        self.permanent = permanent
        self.description = description
    }
}

/// One reply (RFC 5321 §4.2): its code and the text of its lines.
struct SMTPReply: Sendable {
    let code: Int
    let lines: [String]

    /// The reply when its code is `code` (or one of `also`); else the failure it stands for.
    @discardableResult
    func expect(_ code: Int, _ step: String, also: Set<Int> = []) throws -> SMTPReply {
        guard self.code == code || also.contains(self.code) else {
            // The server's own words, cut short and without line breaks, say why.
            let text = lines.joined(separator: " ").unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7f }
            throw SMTPFailure(
                permanent: (500..<600).contains(self.code),
                "\(step): the mail server answered \(self.code) \(String(String.UnicodeScalarView(text)).prefix(200))")
        }
        return self
    }
}

/// One SMTP connection: commands out, replies in, TLS added in place for STARTTLS.
final class SMTPConnection: Sendable {
    private let channel: any Channel
    private let replies: SMTPReplyHandler
    private let encrypted: Mutex<Bool>

    private init(channel: any Channel, replies: SMTPReplyHandler, encrypted: Bool) {
        self.channel = channel
        self.replies = replies
        self.encrypted = Mutex(encrypted)
    }

    /// Whether TLS protects the connection.
    var isEncrypted: Bool { encrypted.withLock { $0 } }

    static func open(_ settings: MailSettings, group: any EventLoopGroup) async throws -> SMTPConnection {
        let replies = SMTPReplyHandler()
        let tls = settings.security == .implicitTLS ? try handler(settings) : nil
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(Int64(settings.timeout.components.seconds)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(tls) }
                        try channel.pipeline.syncOperations.addHandler(replies)
                    }
                }
                .connect(host: settings.host, port: settings.port).get()
        } catch {
            throw SMTPFailure(permanent: false, "cannot reach the mail server \(settings.host):\(settings.port)")
        }
        return SMTPConnection(channel: channel, replies: replies, encrypted: tls != nil)
    }

    private static func handler(_ settings: MailSettings) throws -> NIOSSLClientHandler {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        }
        // An IP address is checked against the certificate's IP addresses; only a name goes in SNI.
        let isAddress = settings.host.contains(":") || settings.host.allSatisfy { $0.isNumber || $0 == "." }
        return try NIOSSLClientHandler(
            context: try NIOSSLContext(configuration: configuration), serverHostname: isAddress ? nil : settings.host)
    }

    /// The next reply.
    func reply() async throws -> SMTPReply {
        try await channel.eventLoop.flatSubmit { self.replies.next(on: self.channel.eventLoop) }.get()
    }

    /// Sends the command `line` (CRLF added) and returns the reply. A line with a line break is
    /// refused before it is sent (it would be two commands). No error ever quotes a command,
    /// so credentials never reach a log.
    func command(_ line: String) async throws -> SMTPReply {
        guard !line.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw SMTPFailure(permanent: true, "a line break inside an SMTP command")
        }
        return try await send(line + "\r\n")
    }

    /// Sends the message of `DATA`: its lines dot-stuffed (RFC 5321 §4.5.2), then the line
    /// with the lone dot that ends it; the reply.
    func data(_ message: String) async throws -> SMTPReply {
        try await send(MailMessage.dotStuffed(message) + ".\r\n")
    }

    private func send(_ text: String) async throws -> SMTPReply {
        // The reply is waited for before the text goes out, so none can arrive unclaimed.
        let reply = channel.eventLoop.flatSubmit { self.replies.next(on: self.channel.eventLoop) }
        do {
            try await channel.writeAndFlush(ByteBuffer(string: text))
        } catch {
            throw SMTPFailure(permanent: false, "the connection to the mail server failed")
        }
        return try await reply.get()
    }

    /// Adds TLS in front of the connection (after the server's 220 to `STARTTLS`).
    func startTLS(_ settings: MailSettings) async throws {
        let handler = try Self.handler(settings)
        try await channel.pipeline.addHandler(handler, position: .first).get()
        encrypted.withLock { $0 = true }
    }

    func close() async throws {
        try await channel.close()
    }
}

/// Collects the server's reply lines (`250-…` continued, `250 …` last) into replies, and hands
/// each to the one waiting for it. Used on its channel's event loop only.
final class SMTPReplyHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var ready: [SMTPReply] = []
    private var waiting: [EventLoopPromise<SMTPReply>] = []
    private var failure: SMTPFailure?

    /// The longest reply line accepted (RFC 5321 §4.5.3.1.5 allows 512 bytes).
    static let lineLimit = 4096

    /// The next reply, now or when it arrives.
    func next(on loop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        loop.assertInEventLoop()
        if !ready.isEmpty { return loop.makeSucceededFuture(ready.removeFirst()) }
        if let failure { return loop.makeFailedFuture(failure) }
        let promise = loop.makePromise(of: SMTPReply.self)
        waiting.append(promise)
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<end])
            pending.removeFirst(end + 1)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            take(line)
        }
        if pending.count > Self.lineLimit { fail(SMTPFailure(permanent: false, "a reply line too long"), context) }
    }

    private func take(_ line: [UInt8]) {
        guard line.count >= 3, let code = Int(String(decoding: line.prefix(3), as: UTF8.self)),
            (200..<600).contains(code)
        else {
            fail(SMTPFailure(permanent: false, "the mail server's answer is not SMTP"), nil)
            return
        }
        lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        guard line.count == 3 || line[3] != UInt8(ascii: "-") else { return }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if waiting.isEmpty { ready.append(reply) } else { waiting.removeFirst().succeed(reply) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPFailure(permanent: false, "the mail server closed the connection"), nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(SMTPFailure(permanent: false, "the connection failed: \(type(of: error))"), context)
    }

    private func fail(_ failure: SMTPFailure, _ context: ChannelHandlerContext?) {
        if self.failure == nil { self.failure = failure }
        let waiting = self.waiting
        self.waiting = []
        for promise in waiting { promise.fail(failure) }
        context?.close(promise: nil)
    }
}
