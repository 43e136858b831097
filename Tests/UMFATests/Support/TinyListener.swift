import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP listener on 127.0.0.1 that counts requests and answers all of them the same
/// way: by hanging up (the SDK sees a network failure), with a fixed status and body, or by
/// relaying them to a real server (losing one answer on the way back).
final class TinyListener: Sendable {
    enum Behaviour: Sendable {
        /// Read the request, then close the connection without answering.
        case hangUp
        /// Answer with this status and JSON body.
        case answer(status: Int, body: String)
        /// Relay each request to the server on 127.0.0.1:`port` and its answer back, except the
        /// first answer to a request whose path ends with `losingFirstAnswerTo`: the server
        /// served that request, then the connection drops before the answer reaches the client.
        case relay(port: Int, losingFirstAnswerTo: String)
    }

    let port: Int
    private let socketDescriptor: Int32
    private let behaviour: Behaviour
    private let received = Mutex<[String]>([])
    private let lostAnswers = Mutex(0)
    /// Whether the socket listens, is being stopped, or is closed; ``stop()`` and the accept
    /// thread change it (and shut down or close the socket) under its lock only, so neither
    /// touches the descriptor once its number may belong to another socket.
    private let state = Mutex(ListenerState.listening)
    /// Signalled once the accept thread has closed the listening socket.
    private let closed = DispatchSemaphore(value: 0)

    private enum ListenerState {
        case listening, stopping, closed
    }

    /// How many answers a ``Behaviour/relay(port:losingFirstAnswerTo:)`` lost.
    var lost: Int { lostAnswers.withLock { $0 } }

    /// The request lines received (`POST /path HTTP/1.1`), in order.
    var requests: [String] { received.withLock { $0 } }

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socketDescriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 64) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            if descriptor >= 0 { close(descriptor) }
            throw TestFailure("the tiny listener could not listen")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops listening; later connections are refused.
    ///
    /// The accept thread closes the descriptor, not this: closed here, its number could go to a
    /// parallel test's socket before the thread (started, not yet running) first called `accept`,
    /// which would then take that test's connections (``closedPort()`` stops a listener at
    /// once; a test once saw two of its three requests vanish that way). Shutting a listening
    /// socket down refuses connections and fails a waiting `accept` on Linux; Darwin's
    /// `shutdown` does neither, so there a connection wakes the thread.
    func stop() {
        let stopped = state.withLock { state in
            guard state == .listening else { return false }
            shutdown(socketDescriptor, Int32(SHUT_RDWR))
            state = .stopping
            return true
        }
        #if canImport(Darwin)
            if stopped { _ = Self.isListening(port: port) }
        #else
            _ = stopped
        #endif
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                connect(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nothing listens on: bound, then closed again (waited for, so the port is free
    /// to bind when this returns).
    static func closedPort() throws -> Int {
        let listener = try TinyListener(.hangUp)
        listener.stop()
        listener.closed.wait()
        return listener.port
    }

    /// Serves connections until ``stop()``; then closes the socket. A failed `accept` while
    /// listening (an interrupted call, a connection aborted, no descriptor free under load) is
    /// tried again.
    private func acceptLoop() {
        while true {
            let connection = accept(socketDescriptor, nil, nil)
            let stopping = state.withLock { state in
                guard state != .listening else { return false }
                close(socketDescriptor)
                state = .closed
                return true
            }
            if stopping {
                if connection >= 0 { close(connection) }
                closed.signal()
                return
            }
            guard connection >= 0 else {
                usleep(1000)
                continue
            }
            serve(connection)
            close(connection)
        }
    }

    private func serve(_ connection: Int32) {
        guard let request = Self.readMessage(connection) else { return }
        let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
        received.withLock { $0.append(line) }
        switch behaviour {
        case .hangUp:
            return
        case .answer(let status, let body):
            let reply =
                "HTTP/1.1 \(status) Status\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)"
            Self.write(Array(reply.utf8), to: connection)
        case .relay(let port, let path):
            guard let answer = Self.exchange(request, port: port) else { return }
            let target = line.split(separator: " ").dropFirst().first ?? ""
            let lose =
                target.hasSuffix(path)
                && lostAnswers.withLock { count in
                    guard count == 0 else { return false }
                    count = 1
                    return true
                }
            if !lose { Self.write(Self.closing(answer), to: connection) }
        }
    }

    /// `answer` saying `Connection: close` (RFC 9112 §9.6), since the relay closes every
    /// connection after one exchange: a client that believed the server's keep-alive would put
    /// the closed connection back in its pool and could send its next request into it.
    private static func closing(_ answer: [UInt8]) -> [UInt8] {
        let text = String(decoding: answer, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return answer }
        let head = text[..<end.lowerBound].split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("connection:") && !$0.lowercased().hasPrefix("keep-alive:") }
        return Array((head.joined(separator: "\r\n") + "\r\nConnection: close" + text[end.lowerBound...]).utf8)
    }

    /// Sends `request` to 127.0.0.1:`port` and reads one answer.
    private static func exchange(_ request: [UInt8], port: Int) -> [UInt8]? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return nil }
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected, write(request, to: upstream) else { return nil }
        return readMessage(upstream)
    }

    @discardableResult
    private static func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            guard result > 0 else { return false }
            sent += result
        }
        return true
    }

    /// Reads one HTTP message, head and body (by Content-Length), as bytes.
    private static func readMessage(_ connection: Int32) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: data, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = String(text[..<end.lowerBound])
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let headLength = text.utf8.distance(from: text.startIndex, to: end.upperBound)
                if data.count - headLength >= length { return Array(data.prefix(headLength + length)) }
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data += buffer[0..<count]
        }
    }
}
