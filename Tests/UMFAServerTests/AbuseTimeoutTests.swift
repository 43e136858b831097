import Foundation
import Hummingbird
import Testing
import UMFAServer
import UMFATestSupport

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

@Suite("Abuse: slow clients")
struct AbuseTimeoutTests {
    static let limits = AbuseLimits()

    @Test("a client that stops in the middle of its request head is disconnected after the idle timeout")
    func partialHead() async throws {
        try await AbuseServer.with(.live, limits: Self.limits, idleTimeout: .seconds(1)) { api in
            let port = try #require(api.client.port)
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            try socket.send("POST /api/umfa/authentication/options HTTP/1.1\r\nHost: localhost\r\nContent-Le")
            let start = ContinuousClock.now
            let answer = socket.receiveUntilClosed(limit: .seconds(10))
            #expect(answer.closed, "the server kept a half-sent request open")
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(answer.text.isEmpty)
        }
    }

    @Test("a client that trickles its request head one byte at a time is disconnected all the same (slowloris)")
    func tricklingHead() async throws {
        try await AbuseServer.with(.live, limits: Self.limits, idleTimeout: .seconds(1)) { api in
            let port = try #require(api.client.port)
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            let head = Array("POST /api/umfa/authentication/options HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8)
            let start = ContinuousClock.now
            var closed = false
            for byte in head + Array(repeating: UInt8(ascii: "a"), count: 40) {
                do {
                    try socket.send(String(decoding: [byte], as: UTF8.self))
                } catch {
                    closed = true
                    break
                }
                try? await Task.sleep(for: .milliseconds(100))
                if ContinuousClock.now - start > .seconds(6) { break }
            }
            let answer = closed ? (text: "", closed: true) : socket.receiveUntilClosed(limit: .seconds(3))
            #expect(answer.closed, "a trickled request head kept the connection open")
            #expect(ContinuousClock.now - start < .seconds(9))
        }
    }

    @Test(
        "a process the tests start while a connection is open holds no copy of it: the server's close reaches the client"
    )
    func childProcessesHoldNoConnection() async throws {
        try await AbuseServer.with(.live, limits: Self.limits, idleTimeout: .seconds(1)) { api in
            let port = try #require(api.client.port)
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            try socket.send("GET /hea")
            try await Task.sleep(for: .milliseconds(300))
            // A child that outlives the connection, as `openssl s_server` and PostgreSQL do in
            // other suites; with the socket inherited, the idle close would never reach the client.
            try await Shell.run("sleep 15 > /dev/null 2>&1 &")
            let answer = socket.receiveUntilClosed(limit: .seconds(10))
            #expect(answer.closed, "a child process kept the closed connection open")
        }
    }

    @Test("a body that trickles in slower than the body timeout gets 408 in the error shape")
    func slowBody() async throws {
        try await AbuseServer.with(.live, limits: Self.limits, idleTimeout: .seconds(30), bodyReadTimeout: .seconds(1))
        { api in
            let port = try #require(api.client.port)
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            try socket.send(
                "POST /api/umfa/authentication/options HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"application_id\":")
            // Keep the connection busy, one byte at a time, well past the body timeout.
            for _ in 0..<6 {
                try? await Task.sleep(for: .milliseconds(300))
                try? socket.send(" ")
            }
            let answer = socket.receiveUntilClosed(limit: .seconds(10), marker: "}")
            #expect(answer.text.hasPrefix("HTTP/1.1 408"), "\(answer.text)")
            #expect(answer.text.contains("\"status\":408"))
            #expect(answer.text.contains("did not arrive within 1 seconds"))
        }
    }
}

/// A blocking TCP client for what an HTTP library will not send: half requests.
final class RawSocket: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else { throw TestFailure("cannot connect to port \(port)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        // MSG_NOSIGNAL: writing to a connection the server closed must fail, not raise SIGPIPE.
        #if canImport(Glibc)
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #else
            let sent = bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) }
        #endif
        guard sent == bytes.count else { throw TestFailure("the server closed the connection") }
    }

    /// Reads until the server closes the connection, `marker` has arrived, or `limit` passes.
    func receiveUntilClosed(limit: Duration, marker: String? = nil) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count > 0 { received += buffer[0..<count] }
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) {
                return (String(decoding: received, as: UTF8.self), false)
            }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK {
                return (String(decoding: received, as: UTF8.self), true)
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}
