import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFATestSupport
import X509

@testable import UMFAServer

/// HSTS (RFC 6797) on every answer of UMFA's own TLS listener, never over plain
/// HTTP (§7.2); `max-age` and `includeSubDomains` are settings (docs/operators/tls.md).
@Suite("TLS serving: Strict-Transport-Security")
struct StrictTransportSecurityTests {
    /// A server certificate for `localhost` and its key, written as PEM files into `directory`.
    static func serverFiles(in directory: URL, now: Date) throws -> (certificate: String, key: String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now - 3600,
            notValidAfter: now + 86_400, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost")])
            }, issuerPrivateKey: .init(key))
        let certificatePath = directory.appendingPathComponent("tls-cert.pem").path
        let keyPath = directory.appendingPathComponent("tls-key.pem").path
        try Data(certificate.pem.utf8).write(to: URL(fileURLWithPath: certificatePath))
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        return (certificatePath, keyPath)
    }

    /// Runs `body` against a server on its own TLS listener (HTTPS over a real socket, with a
    /// patient client that does not verify the test certificate).
    static func overTLS<Value: Sendable>(
        _ policy: StrictTransportSecurity = StrictTransportSecurity(),
        _ body: @Sendable (any ServerClient) async throws -> Value
    ) async throws -> Value {
        var server = TestServer()
        defer { server.remove() }
        let files = try serverFiles(in: server.directory, now: Date())
        server.adjust = { configuration in
            var tls = TLSServing(certificatePath: files.certificate, keyPath: files.key)
            tls.strictTransportSecurity = policy
            tls.reloadPollInterval = nil
            configuration.tls = tls
        }
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, _) = try await buildApplication(configuration: server.configuration, logger: logger)
        return try await app.exercise(.liveTLS) { client in try await body(client) }
    }

    /// The requests: a JSON answer, the admin API, an error a route renders, an unknown path.
    static let requests: [(String, String, HTTPFields)] = [
        ("health", "/health", [:]),
        ("admin API", APIOperation.listApplications.path, [.authorization: "Bearer \(TestServer.adminToken)"]),
        ("401", APIOperation.listApplications.path, [.authorization: "Bearer wrong-admin-token-0123"]),
        ("unknown path", "/no-such-path", [:]),
    ]

    /// The status and the `Strict-Transport-Security` values of each request's answer.
    static func answers(_ send: (String, HTTPFields) async throws -> (HTTPResponse.Status, HTTPFields)) async throws
        -> [(String, HTTPResponse.Status, [String])]
    {
        var answers: [(String, HTTPResponse.Status, [String])] = []
        for (kind, path, headers) in requests {
            let (status, fields) = try await send(path, headers)
            answers.append((kind, status, fields[values: .strictTransportSecurity]))
        }
        return answers
    }

    @Test("every answer of the TLS listener carries HSTS for a year, without includeSubDomains")
    func defaultPolicy() async throws {
        try await Self.overTLS { client in
            let answers = try await Self.answers { path, headers in
                let response = try await client.execute(uri: path, method: .get, headers: headers, body: nil)
                return (response.status, response.headers)
            }
            #expect(answers.map(\.1) == [.ok, .ok, .unauthorized, .notFound])
            for (kind, _, hsts) in answers {
                #expect(hsts == ["max-age=31536000"], "\(kind)")
            }
        }
    }

    @Test("max-age and includeSubDomains come from the settings")
    func configuredPolicy() async throws {
        try await Self.overTLS(StrictTransportSecurity(maxAge: 600, includeSubDomains: true)) { client in
            let reply = try await client.execute(uri: "/health", method: .get, headers: [:], body: nil)
            #expect(reply.status == .ok)
            #expect(reply.headers[values: .strictTransportSecurity] == ["max-age=600; includeSubDomains"])
        }
    }

    @Test("plain HTTP answers never carry HSTS (RFC 6797 §7.2)")
    func plainHTTP() async throws {
        let server = TestServer()
        defer { server.remove() }
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, _) = try await buildApplication(configuration: server.configuration, logger: logger)
        try await app.exercise(.live) { client in
            let answers = try await Self.answers { path, headers in
                let response = try await client.execute(uri: path, method: .get, headers: headers)
                return (response.status, response.headers)
            }
            #expect(answers.map(\.1) == [.ok, .ok, .unauthorized, .notFound])
            for (kind, _, hsts) in answers {
                #expect(hsts.isEmpty, "\(kind)")
            }
        }
    }

    @Test("the settings: defaults, values, and refusals without TLS or out of range")
    func settings() throws {
        func configuration(_ environment: [String: String]) throws -> ServerConfiguration {
            var configuration = ServerConfiguration()
            try configuration.apply(SettingsReader(environment: environment))
            return configuration
        }
        let files = ["UMFA_TLS_CERTIFICATE": "/c.pem", "UMFA_TLS_KEY": "/k.pem"]
        #expect(try configuration(files).tls?.strictTransportSecurity.headerValue == "max-age=31536000")
        let set = try configuration(
            files.merging(["UMFA_HSTS_MAX_AGE_SECONDS": "0", "UMFA_HSTS_INCLUDE_SUBDOMAINS": "1"]) { $1 })
        #expect(set.tls?.strictTransportSecurity.headerValue == "max-age=0; includeSubDomains")
        for environment in [
            ["UMFA_HSTS_MAX_AGE_SECONDS": "600"], ["UMFA_HSTS_INCLUDE_SUBDOMAINS": "1"],
            files.merging(["UMFA_HSTS_MAX_AGE_SECONDS": "-1"]) { $1 },
            files.merging(["UMFA_HSTS_MAX_AGE_SECONDS": "99999999999"]) { $1 },
            files.merging(["UMFA_HSTS_INCLUDE_SUBDOMAINS": "maybe"]) { $1 },
        ] {
            #expect(throws: ConfigurationError.self, "\(environment)") { try configuration(environment) }
        }
    }
}
