import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import UMFAContract
import UMFATestSupport

@testable import UMFAServer

/// Deployment defaults (docs/threat-model.md, "Deployment defaults"): IPv6 callers count per /64, and `/metrics` needs
/// `UMFA_METRICS_TOKEN` or a caller on this machine.
@Suite("Deployment defaults")
struct DeploymentDefaultsTests {
    static let metricsToken = "umfa-test-metrics-token-0123456789"
    static let limits = AbuseLimits(
        credentialFailures: 4, window: .seconds(60), baseBlock: .seconds(30), maxBlock: .seconds(120))

    /// A test server with `X-Forwarded-For` trusted and, when given, a metrics token.
    static func with(
        _ setup: ServerTransport = .router, metricsToken: String? = nil, trustForwardedFor: Bool = true,
        _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.remove() }
        var configuration = server.configuration
        configuration.abuseLimits = limits
        configuration.trustForwardedFor = trustForwardedFor
        configuration.metricsToken = metricsToken
        var logger = Logger(label: "umfa-deployment-test")
        logger.logLevel = .critical
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        try await app.exercise(setup) { client in
            try await body(API(client: client, clock: server.clock, directory: server.directory))
        }
    }

    @Test(
        "an IPv6 address counts as its /64, an IPv4-mapped one as the IPv4 address",
        arguments: [
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
            ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
            ("2001:db8::1", "2001:db8::/64"),
            ("[2001:db8:1:2::9]:443", "2001:db8:1:2::/64"),
            ("[2001:db8:1:2::9]", "2001:db8:1:2::/64"),
            ("fe80::1%eth0", "fe80::/64"),
            ("::1", "::/64"),
            ("::ffff:192.0.2.1", "192.0.2.1"),
            ("::ffff:c000:201", "192.0.2.1"),
            ("192.0.2.1", "192.0.2.1"),
            ("192.0.2.1:5678", "192.0.2.1"),
            ("unknown", "unknown"),
            ("not-an-address", "not-an-address"),
        ])
    func counted(address: String, expected: String) {
        #expect(ClientAddress.counted(address) == expected)
    }

    @Test("the connected peer counts by /64 too, and an IPv4-mapped peer as IPv4")
    func peerAddress() throws {
        let request = Self.request()
        let peer = try SocketAddress(ipAddress: "2001:db8:7:8:1:2:3:4", port: 443)
        #expect(ClientAddress.of(request, peer: peer, trustForwardedFor: false) == "2001:db8:7:8::/64")
        let mapped = try SocketAddress(ipAddress: "::ffff:198.51.100.7", port: 443)
        #expect(ClientAddress.of(request, peer: mapped, trustForwardedFor: false) == "198.51.100.7")
        let forwarded = Self.request(["X-Forwarded-For": "198.51.100.1, 2001:db8:9:9::77"])
        #expect(ClientAddress.of(forwarded, peer: peer, trustForwardedFor: true) == "2001:db8:9:9::/64")
    }

    @Test("a caller rotating inside its /64 is one caller to the limits; the next /64 is another")
    func rotationInsideSlash64() async throws {
        try await Self.with { api in
            for guess in 1...4 {
                let reply = try await api.send(
                    .get, APIOperation.listApplications.path, bearer: "wrong-\(guess)", from: "2001:db8:1:2::\(guess)")
                expectError(reply, .unauthorized, message: "Missing or invalid admin token")
            }
            let sameNetwork = try await api.send(
                .get, APIOperation.listApplications.path, bearer: "wrong-5", from: "2001:db8:1:2:ffff::1")
            expectError(sameNetwork, .tooManyRequests, containing: "Too many failed attempts")
            let nextNetwork = try await api.send(
                .get, APIOperation.listApplications.path, bearer: "wrong-6", from: "2001:db8:1:3::1")
            expectError(nextNetwork, .unauthorized, message: "Missing or invalid admin token")
        }
    }

    @Test("with UMFA_METRICS_TOKEN, /metrics needs it as a bearer token: 401 otherwise, guesses throttled")
    func metricsToken() async throws {
        try await Self.with(metricsToken: Self.metricsToken) { api in
            let missing = try await api.send(.get, "/metrics")
            expectError(missing, .unauthorized, message: "Missing or invalid metrics token")
            #expect(!missing.text.contains(Self.metricsToken))
            let granted = try await api.send(.get, "/metrics", bearer: Self.metricsToken)
            #expect(granted.status == .ok)
            #expect(granted.text.contains("umfa_http_requests_total"))
            #expect(!granted.text.contains(Self.metricsToken))
            for guess in 1...4 {
                let wrong = try await api.send(.get, "/metrics", bearer: "guess-\(guess)", from: "203.0.113.9")
                expectError(wrong, .unauthorized, message: "Missing or invalid metrics token")
            }
            let throttled = try await api.send(.get, "/metrics", bearer: "guess-5", from: "203.0.113.9")
            expectError(throttled, .tooManyRequests, containing: "Too many failed attempts")
        }
    }

    @Test("without a token, /metrics answers a loopback peer only, and not what a proxy forwarded")
    func metricsLoopbackOnly() async throws {
        try await Self.with(.live, trustForwardedFor: false) { api in
            _ = try await api.send(.get, "/health")
            let local = try await api.send(.get, "/metrics")
            #expect(local.status == .ok, "\(local.text)")
            #expect(local.text.contains("umfa_http_requests_total"))
            let proxied = try await api.send(.get, "/metrics", from: "198.51.100.20")
            expectError(proxied, .forbidden, containing: "UMFA_METRICS_TOKEN")
        }
        try await Self.with(.router) { api in
            expectError(try await api.send(.get, "/metrics"), .forbidden, containing: "only callers on this machine")
        }
    }

    @Test("a caller is on this machine only when its peer is loopback and no proxy header says otherwise")
    func localCaller() throws {
        for address in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            #expect(ClientAddress.isLocal(Self.request(), peer: try SocketAddress(ipAddress: address, port: 1)))
        }
        for address in ["192.0.2.1", "10.0.0.1", "2001:db8::1", "::ffff:192.0.2.1", "::2"] {
            #expect(!ClientAddress.isLocal(Self.request(), peer: try SocketAddress(ipAddress: address, port: 1)))
        }
        let loopback = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
        #expect(!ClientAddress.isLocal(Self.request(["X-Forwarded-For": "127.0.0.1"]), peer: loopback))
        #expect(!ClientAddress.isLocal(Self.request(["Forwarded": "for=192.0.2.60"]), peer: loopback))
        #expect(!ClientAddress.isLocal(Self.request(), peer: nil))
    }

    /// A GET /metrics with `headers`.
    static func request(_ headers: [String: String] = [:]) -> Request {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPFields.Element.Name(name) { fields[name] = value }
        }
        let head = HTTPRequest(
            method: .get, scheme: "http", authority: "umfa.test", path: "/metrics", headerFields: fields)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }
}
