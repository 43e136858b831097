import Foundation
import NIOSSL
import Testing
import UMFA
import UMFATLSTransport
import UMFATestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TLSTransport` against `openssl s_server` with certificates made by openssl: the chain and
/// name check, public-key pins (RFC 7469 §2.4 digests, computed by openssl) and the client
/// certificate it presents (RFC 8705 §2).
@Suite(.serialized) struct TLSTransportTests {
    /// Runs `body` with a fresh PKI and a server for `localhost` issued by `ca`.
    private func withServer(
        certificate: String = "ca-server.pem", key: String = "ca-server.key", clientCA: String? = nil,
        _ body: (TestPKI, OpenSSLServer) async throws -> Void
    ) async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        let server = try await OpenSSLServer.start(pki: pki, certificate: certificate, key: key, clientCA: clientCA)
        do {
            try await body(pki, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func roots(_ pki: TestPKI, _ name: String = "ca.pem") throws -> TLSTransportConfiguration.ServerTrust {
        .certificates(try NIOSSLCertificate.fromPEMFile(pki.path(name)))
    }

    /// The status and page of a GET of `server` at `host`; a failure that is not expected
    /// (`refused` false) records what `openssl s_server` logged.
    private func get(
        _ transport: TLSTransport, _ server: OpenSSLServer, _ host: String = "localhost", refused: Bool = false
    ) async throws -> (Int, String) {
        do {
            let (data, response) = try await transport.send(URLRequest(url: server.url(host)))
            return (response.statusCode, String(decoding: data, as: UTF8.self))
        } catch {
            if !refused {
                Issue.record(
                    "openssl s_server said: \((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "")")
            }
            throw error
        }
    }

    @Test func theServersPinLetsTheRequestThrough() async throws {
        try await withServer { pki, server in
            let pin = try await pki.pin(of: "ca-server.pem")
            let transport = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki), pins: [pin]))
            let (status, page) = try await get(transport, server)
            #expect(status == 200)
            #expect(page.contains("Protocol  : TLSv1.3"))
        }
    }

    @Test func aKeyMatchingNoPinIsRefusedInTheHandshake() async throws {
        try await withServer { pki, server in
            // The other CA's server key: a valid pin, of another server.
            let elsewhere = try await pki.pin(of: "other-ca-server.pem")
            let transport = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki), pins: [elsewhere]))
            await #expect(throws: TLSTransportError.pinMismatch(host: "localhost")) {
                _ = try await get(transport, server, refused: true)
            }
            // The server saw a handshake end with a bad-certificate alert and never a request.
            let log = try String(contentsOfFile: server.log, encoding: .utf8)
            #expect(!log.contains("GET /"))
        }
    }

    @Test func aSecondPinCoversKeyRotation() async throws {
        try await withServer { pki, server in
            let next = try await pki.pin(of: "other-ca-server.pem")
            let current = try await pki.pin(of: "ca-server.pem")
            let transport = try TLSTransport(
                TLSTransportConfiguration(trust: try roots(pki), pins: [next, "sha256/" + current]))
            #expect(try await get(transport, server).0 == 200)
            // RFC 7469 §2.6: a pin of the issuing CA's key matches the validated chain too.
            let caPin = try await pki.pin(of: "ca.pem")
            let byCA = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki), pins: [next, caPin]))
            #expect(try await get(byCA, server).0 == 200)
        }
    }

    @Test func theChainIsCheckedBeforeThePins() async throws {
        try await withServer { pki, server in
            let pin = try await pki.pin(of: "ca-server.pem")
            // The right pin does not make another CA's roots trust this chain.
            let otherRoots = try TLSTransport(
                TLSTransportConfiguration(trust: try roots(pki, "other-ca.pem"), pins: [pin]))
            await #expect {
                _ = try await get(otherRoots, server, refused: true)
            } throws: { error in
                guard case .untrustedCertificate(let host, _) = error as? TLSTransportError else { return false }
                return host == "localhost"
            }
            // The certificate names localhost, not 127.0.0.1 (RFC 6125): refused by name.
            let byAddress = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki), pins: [pin]))
            await #expect {
                _ = try await get(byAddress, server, "127.0.0.1", refused: true)
            } throws: { error in
                guard case .untrustedCertificate(let host, _) = error as? TLSTransportError else { return false }
                return host == "127.0.0.1"
            }
        }
    }

    @Test func pinsOnlyTrustsASelfSignedServerByItsKeyAlone() async throws {
        try await withServer(certificate: "self.pem", key: "self.key") { pki, server in
            let pin = try await pki.pin(of: "self.pem")
            let pinned = try TLSTransport(TLSTransportConfiguration(trust: .pinsOnly, pins: [pin]))
            #expect(try await get(pinned, server, "127.0.0.1").0 == 200)
            let other = try await pki.pin(of: "ca-server.pem")
            let wrong = try TLSTransport(TLSTransportConfiguration(trust: .pinsOnly, pins: [other]))
            await #expect(throws: TLSTransportError.pinMismatch(host: "127.0.0.1")) {
                _ = try await get(wrong, server, "127.0.0.1", refused: true)
            }
            // Self-signed and no pins-only: no root knows it.
            let chained = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki), pins: [pin]))
            await #expect(throws: TLSTransportError.self) { _ = try await get(chained, server, refused: true) }
        }
    }

    @Test func aServerThatClosesWithoutAnsweringIsReportedByHowFarTheConnectionGot() async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        // Python's ssl module: the handshake, the request read in full, then close_notify and
        // the end of the connection, with no answer.
        let script = pki.path("closing-server.py")
        let portFile = pki.path("closing-server.port")
        try """
        import os, socket, ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain("\(pki.path("ca-server.pem"))", "\(pki.path("ca-server.key"))")
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with open("\(portFile).part", "w") as file:
            file.write(str(listener.getsockname()[1]))
        os.rename("\(portFile).part", "\(portFile)")
        connection = context.wrap_socket(listener.accept()[0], server_side=True)
        request = b""
        while b"\\r\\n\\r\\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                break
            request += chunk
        connection.unwrap().close()
        """.write(toFile: script, atomically: true, encoding: .utf8)
        try await Shell.run("timeout 60 python3 '\(script)' > '\(pki.path("closing-server.log"))' 2>&1 &")
        var port: Int?
        // Until the script's own limit, not a count of polls: a busy machine starts Python slowly.
        let deadline = ContinuousClock.now + .seconds(60)
        while port == nil, ContinuousClock.now < deadline {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let listening = try #require(port, "the Python server did not start")
        let url = try #require(URL(string: "https://localhost:\(listening)/"))
        let transport = try TLSTransport(TLSTransportConfiguration(trust: try roots(pki)))
        await #expect {
            _ = try await transport.send(URLRequest(url: url))
        } throws: { error in
            guard case .connectionFailed(let host, let reason) = error as? TLSTransportError else { return false }
            return host == "localhost" && reason.hasPrefix("the server closed the connection after the TLS handshake")
        }
    }

    @Test func badPinsAndPlainHTTPAreRefusedBeforeAnyConnection() async throws {
        #expect(throws: TLSTransportError.self) {
            try TLSTransport(TLSTransportConfiguration(trust: .pinsOnly, pins: []))
        }
        #expect(throws: TLSTransportError.self) {
            try TLSTransport(TLSTransportConfiguration(pins: ["c2hvcnQ="]))
        }
        let transport = try TLSTransport(TLSTransportConfiguration())
        // Never in clear: a pin cannot be checked over plain HTTP.
        let plain = try #require(URL(string: "http://localhost:8080/"))
        await #expect(throws: TLSTransportError.unsupportedURL("http://localhost:8080/")) {
            _ = try await transport.send(URLRequest(url: plain))
        }
    }
}
