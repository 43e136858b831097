import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFATestSupport
import X509

@testable import UMFAServer

/// Refusals are seen by the operator (docs/contract.md §4): every refused client authentication and
/// every refused token leaves the operator a log line (reason, client, address, trace id; never the
/// secret, assertion or token) and a count on `/metrics` by a fixed reason
/// (docs/operators/metrics.md).
@Suite("Operator trace of refused client authentications and tokens")
struct RefusalTrailTests {
    /// A live server (proxy header from loopback trusted, `pki` the mutual-TLS anchor) logging
    /// into `lines`.
    static func run<Value: Sendable>(
        _ lines: LogCapture, pki: TestPKI, clock: TestClock = TestClock(), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        var server = TestServer(clock: clock)
        defer { server.remove() }
        let anchors = [pki.ca]
        server.adjust = { configuration in
            configuration.mutualTLS.certificateHeader = MutualTLSServer.header
            configuration.mutualTLS.trustedProxies = ["127.0.0.1", "::1"].compactMap(IPAddressRange.init)
            configuration.mutualTLS.trustAnchors = anchors
        }
        let (app, _) = try await buildApplication(configuration: server.configuration, logger: lines.logger())
        let (clock, directory) = (server.clock, server.directory)
        return try await app.exercise(.live) { client in
            try await body(API(client: client, clock: clock, directory: directory))
        }
    }

    /// The one log line of `message` whose reason is `reason`, with its trace id.
    static func line(_ lines: LogCapture, _ message: String, reason: String, traceID: String?) throws -> String {
        let traceID = try #require(traceID, "the answer carries no trace id")
        let matching = lines.text.split(separator: "\n").filter {
            $0.contains(message) && $0.contains(#""refusal.reason": \#(reason)"#)
                && $0.contains(#""trace.id": \#(traceID)"#)
        }
        #expect(matching.count == 1, "\(message) \(reason): \(matching)")
        return String(try #require(matching.first))
    }

    /// Whether the line names a loopback client address (the live test client's).
    static func namesLoopback(_ line: String) -> Bool {
        line.contains(#""client.address": 127.0.0.1"#) || line.contains(#""client.address": ::1"#)
    }

    @Test("wrong secret, unknown client, bad assertion, wrong or no certificate: a line each and a count by reason")
    func clientAuthentication() async throws {
        let lines = LogCapture()
        let clock = TestClock()
        let pki = try TestPKI(now: clock.now)
        try await Self.run(lines, pki: pki, clock: clock) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let secret = try #require(client.secret)
            let grant = [("grant_type", "client_credentials")]
            let wrongSecret = "umfa_cs_wrong-secret-\(UUID().uuidString)"

            let wrong = try await api.form(.oauthToken, app, grant, basic: (client.id, wrongSecret))
            expectOAuthError(wrong, .unauthorized, "invalid_client")
            let line = try Self.line(
                lines, "client authentication refused", reason: "wrong_secret", traceID: wrong["trace_id"]?.stringValue)
            #expect(line.contains(#""client.id": \#(client.id)"#))
            #expect(Self.namesLoopback(line), "\(line)")

            let unknown = try await api.form(.oauthToken, app, grant, basic: ("evil\nclient", "x"))
            expectOAuthError(unknown, .unauthorized, "invalid_client")
            let unknownLine = try Self.line(
                lines, "client authentication refused", reason: "unknown_client",
                traceID: unknown["trace_id"]?.stringValue)
            // A line feed in the client id is written as an escape, never as a new line.
            #expect(unknownLine.contains(#""client.id": evil\nclient"#), "\(unknownLine)")

            let assertion = "not-a-jwt-\(UUID().uuidString)"
            let badAssertion = try await api.form(
                .oauthToken, app,
                grant + [
                    ("client_id", client.id),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", assertion),
                ])
            expectOAuthError(badAssertion, .unauthorized, "invalid_client")
            _ = try Self.line(
                lines, "client authentication refused", reason: "bad_assertion",
                traceID: badAssertion["trace_id"]?.stringValue)

            let created = try await api.registerClient(
                app, .machine { $0.tlsClientAuthSubjectDN = "CN=Billing Service,O=Example Corp" })
            let certificateClient = try #require(created["client_id"]?.stringValue, "\(created.text)")
            let rogue = try TestPKI(name: "Rogue CA", now: clock.now).issue(
                DistinguishedName {
                    OrganizationName("Example Corp")
                    CommonName("Billing Service")
                }, now: clock.now)
            let badCertificate = try await api.mtlsForm(
                .oauthToken, app, grant + [("client_id", certificateClient)], certificate: rogue)
            expectOAuthError(badCertificate, .unauthorized, "invalid_client")
            let certificateLine = try Self.line(
                lines, "client authentication refused", reason: "bad_certificate",
                traceID: badCertificate["trace_id"]?.stringValue)
            #expect(certificateLine.contains(#""client.id": \#(certificateClient)"#))
            let noCertificate = try await api.mtlsForm(
                .oauthToken, app, grant + [("client_id", certificateClient)], certificate: nil)
            expectOAuthError(noCertificate, .unauthorized, "invalid_client")
            _ = try Self.line(
                lines, "client authentication refused", reason: "no_certificate",
                traceID: noCertificate["trace_id"]?.stringValue)

            // Never a secret or an assertion, right or wrong.
            for value in [secret, wrongSecret, assertion] {
                #expect(!lines.text.contains(value))
            }
            let metrics = try await api.send(.get, "/metrics").text
            for reason in ["wrong_secret", "unknown_client", "bad_assertion", "bad_certificate", "no_certificate"] {
                #expect(
                    OperatorMetricsTests.sample(
                        metrics, "umfa_client_authentication_refusals_total", ["reason": reason])
                        == 1, "\(reason)")
            }
            #expect(!metrics.contains("evil"), "a caller's value never becomes a label")
        }
    }

    @Test("a forged token and a token the endpoint does not take, at UserInfo and validate-token: a line and a count")
    func tokens() async throws {
        let lines = LogCapture()
        let pki = try TestPKI(now: TestClock().now)
        try await Self.run(lines, pki: pki) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.machineClient(app)
            let issued = try await api.form(
                .oauthToken, app, [("grant_type", "client_credentials")],
                basic: (client.id, try #require(client.secret)))
            let machineToken = try #require(issued["access_token"]?.stringValue, "\(issued.text)")
            let forged = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5In0.\(UUID().uuidString)"

            let forgedReply = try await api.userinfo(app, token: forged)
            #expect(forgedReply.status == .unauthorized)
            let forgedLine = try Self.line(
                lines, "token refused", reason: "invalid", traceID: forgedReply["trace_id"]?.stringValue)
            #expect(forgedLine.contains(#""refusal.endpoint": protected_resource"#))
            #expect(Self.namesLoopback(forgedLine), "\(forgedLine)")

            // A valid machine token is not a user's: UserInfo does not take it.
            let machineReply = try await api.userinfo(app, token: machineToken)
            #expect(machineReply.status == .unauthorized)
            let machineLine = try Self.line(
                lines, "token refused", reason: "not_accepted", traceID: machineReply["trace_id"]?.stringValue)
            #expect(machineLine.contains(#""client.id": \#(client.id)"#))

            let validate = try await api.validate(app, user: "alice", token: .string(forged))
            #expect(validate.status == .unauthorized)
            let validateLine = try Self.line(
                lines, "token refused", reason: "invalid", traceID: validate["trace_id"]?.stringValue)
            #expect(validateLine.contains(#""refusal.endpoint": validate_token"#))
            #expect(validateLine.contains(#""application.id": \#(app.id)"#))

            for token in [forged, machineToken] {
                #expect(!lines.text.contains(token))
            }
            let metrics = try await api.send(.get, "/metrics").text
            let counts = [
                ("protected_resource", "invalid", 1.0), ("protected_resource", "not_accepted", 1),
                ("validate_token", "invalid", 1),
            ]
            for (endpoint, reason, count) in counts {
                #expect(
                    OperatorMetricsTests.sample(
                        metrics, "umfa_token_refusals_total", ["endpoint": endpoint, "reason": reason]) == count,
                    "\(endpoint) \(reason)")
            }
        }
    }
}
