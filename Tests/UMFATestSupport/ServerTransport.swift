import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// How a test reaches the server under test: in process through its router, or over a real
/// socket on a loopback port.
///
/// HummingbirdTesting's live mode gives its client a fixed 20-second read timeout, which a test
/// client starved of CPU on a busy machine trips although nothing is wrong with the server. A test
/// that is not about a timeout must not depend on the machine's speed, so the
/// live client here waits as long as ``patientTimeout``; the tests of the server's own timeouts set
/// those timeouts short and keep them.
public enum ServerTransport: Sendable {
    /// In process, through the router: no socket, no client timeout.
    case router
    /// Over a real socket on a loopback port, with a patient client.
    case live
    /// Over TLS on a loopback port, for an application that serves TLS itself; the patient client
    /// does not verify the test certificate.
    case liveTLS

    /// How long the live client waits for an answer: a hang still fails, a slow machine does not.
    public static let patientTimeout: Duration = .seconds(600)
}

extension ApplicationProtocol {
    /// Runs `body` against the application over `transport`.
    public func exercise<Value: Sendable>(
        _ transport: ServerTransport, _ body: @Sendable (any ServerClient) async throws -> Value
    ) async throws -> Value {
        switch transport {
        case .router:
            return try await test(.router) { client in try await body(RouterClient(client: client)) }
        case .live:
            return try await PatientLiveRun(base: self, tls: false).run(body)
        case .liveTLS:
            return try await PatientLiveRun(base: self, tls: true).run(body)
        }
    }
}

/// The application on a loopback port of its own choosing, reporting the port once it listens.
private struct PortReportingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let port: PortBox

    var responder: Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration.with(address: .hostname("localhost", port: 0)) }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        port.fulfil(channel.localAddress?.port)
    }
}

/// The bound port, awaited by the test while the service group starts the server.
private final class PortBox: Sendable {
    private let state = Mutex<(port: Int??, waiters: [CheckedContinuation<Int?, Never>])>((nil, []))

    func fulfil(_ port: Int?) {
        let waiters = state.withLock { state in
            state.port = .some(port)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    func value() async -> Int? {
        await withCheckedContinuation { continuation in
            let known: Int?? = state.withLock { state in
                if let port = state.port { return .some(port) }
                state.waiters.append(continuation)
                return .none
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}

/// One live run: the application in a service group, a patient client, both shut down after.
private struct PatientLiveRun<Base: ApplicationProtocol> {
    let base: Base
    let tls: Bool

    func run<Value: Sendable>(_ body: @Sendable (any ServerClient) async throws -> Value) async throws
        -> Value
    {
        let port = PortBox()
        let application = PortReportingApplication(base: base, port: port)
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: base.logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            guard let bound = await port.value() else {
                await group.triggerGracefulShutdown()
                throw ServerTransportError.noPort
            }
            let client = TestClient(
                host: "localhost", port: bound,
                configuration: .init(
                    tlsConfiguration: tls ? Self.clientTLS : nil, timeout: ServerTransport.patientTimeout,
                    serverName: tls ? "localhost" : nil))
            client.connect()
            let result: Result<Value, any Error>
            do {
                result = .success(try await body(PatientClient(client: client, port: bound)))
            } catch {
                result = .failure(error)
            }
            try await client.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}

extension PatientLiveRun {
    /// TLS for the test client: the test server's certificate is made by the test, not trusted.
    static var clientTLS: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }
}

/// The live server bound no port it could name.
public struct ServerTransportError: Error, CustomStringConvertible {
    let reason: String

    static let noPort = ServerTransportError(reason: "the live server bound no port")

    /// What went wrong.
    public var description: String { reason }
}

/// A client of the server under test, over either transport.
public protocol ServerClient: Sendable {
    /// The live server's port; `nil` through the router.
    var port: Int? { get }

    /// Sends one request and returns the whole answer.
    func exchange(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> ServerReply
}

extension ServerClient {
    /// Sends one request, without headers or body unless given.
    public func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil)
        async throws -> ServerReply
    {
        try await exchange(uri: uri, method: method, headers: headers, body: body)
    }
}

/// One whole answer of the server under test.
public struct ServerReply: Sendable {
    /// The status line.
    public let status: HTTPResponse.Status
    /// The header fields.
    public let headers: HTTPFields
    /// The body, empty when there was none.
    public let body: ByteBuffer
}

/// The router's in-process client.
private struct RouterClient: ServerClient {
    let client: any TestClientProtocol

    var port: Int? { client.port }

    func exchange(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> ServerReply
    {
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
        return ServerReply(status: response.status, headers: response.headers, body: response.body)
    }
}

/// A keep-alive client on the live server's port that waits ``ServerTransport/patientTimeout``.
private struct PatientClient: ServerClient {
    let client: TestClient
    let port: Int?

    func exchange(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> ServerReply
    {
        var headers = headers
        headers[.connection] = "keep-alive"
        let request = TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body)
        let response = try await client.execute(request)
        return ServerReply(status: response.status, headers: response.headers, body: response.body ?? ByteBuffer())
    }
}
