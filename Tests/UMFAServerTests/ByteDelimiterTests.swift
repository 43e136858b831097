import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Testing
import UMFAContract
import UMFATestSupport

@testable import UMFAServer

/// Text by byte (docs/contract.md §4, "Text meets HTML, protocols and logs"), the other places
/// where text is split or passed on by Swift `Character`: a delimiter followed by a combining mark
/// (`&` + U+0301), or preceded by a grapheme "Prepend" scalar (U+0600 + `,`), is one `Character`
/// that is not the delimiter, so the server read the text differently from every byte-wise reader
/// in front of it. Each place now splits by byte (``ASCIISplit``), and log lines escape per scalar
/// (``LogText``).
@Suite("Protocol text is split by byte and logged per scalar")
struct ByteDelimiterTests {
    static let limits = AbuseLimits(
        userFailures: 3, addressFailures: 8, credentialFailures: 4, window: .seconds(60), baseBlock: .seconds(30),
        maxBlock: .seconds(120))

    @Test("a form parameter after `&` + combining mark is its own parameter, and `=` + mark still splits")
    func formSplitsByByte() throws {
        let form = try OAuthForm(encoded: "state=s1&\u{301}x=1&a=\u{301}")
        #expect(form["state"] == "s1")
        #expect(form["\u{301}x"] == "1")
        #expect(form["a"] == "\u{301}")
    }

    @Test("the SSO cookie ends at `;` even when a combining mark follows it")
    func cookieSplitsByByte() {
        #expect(SSOSessions.cookie("umfa_sso", in: "umfa_sso=abc;\u{301}x=1") == "abc")
        #expect(SSOSessions.cookie("umfa_sso", in: "x=1;\u{20DD} umfa_sso=abc") == nil)
        #expect(SSOSessions.cookie("umfa_sso", in: "a=\u{301}; umfa_sso=def") == "def")
    }

    @Test("the address a trusted proxy appended is the one counted, whatever the client wrote before it")
    func forwardedForSplitsByByte() {
        let request = DeploymentDefaultsTests.request(["X-Forwarded-For": "198.51.100.1\u{600}, 203.0.113.9"])
        #expect(ClientAddress.of(request, peer: nil, trustForwardedFor: true) == "203.0.113.9")
    }

    @Test(
        "a client cannot escape the address limit by a Prepend scalar before the proxy's comma",
        arguments: [
            ServerTransport.router, .live,
        ])
    func addressLimitHoldsAgainstPrepend(transport: ServerTransport) async throws {
        try await AbuseServer.with(transport, limits: Self.limits) { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            for index in 0..<9 {
                _ = try await api.register(app, user: "user\(index)", device: device)
            }
            // The proxy appends ", 203.0.113.66" to whatever the client sent.
            for index in 0..<8 {
                let reply = try await api.failedSignIn(
                    app, user: "user\(index)", device: device, from: "198.51.100.\(index)\u{600}, 203.0.113.66")
                expectError(reply, .unauthorized)
            }
            let valid = try await api.assertion(app, user: "user8", device: device)
            let refused = try await api.signIn(
                app, user: "user8", assertion: valid, from: "198.51.100.99\u{600}, 203.0.113.66")
            AbuseLimitTests.expectLimited(refused, retryAfter: 30)
        }
    }

    @Test("an email whose domain starts with a `.` that carries a combining mark is not an email address")
    func emailSplitsByByte() {
        // The domain starts with a `.` byte, which a combining mark hid from `hasPrefix(".")`.
        #expect(throws: ServiceError.self) { try UserProfileService.checkEmail("ann@.\u{301}example.com") }
        #expect(throws: Never.self) { try UserProfileService.checkEmail("ann@example.com") }
    }

    /// The events a ``CapturingHandler`` kept.
    final class Events: Sendable {
        let list = Mutex<[LogEvent]>([])
    }

    /// Keeps each event the server's log handler passes on.
    struct CapturingHandler: LogHandler {
        let events: Events
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { events.list.withLock { $0.append(event) } }
    }

    @Test("request text in a log message or its metadata cannot start a new log line")
    func logLinesEscapeControls() throws {
        let events = Events()
        let logger = Logger(label: "test") { _ in MetadataDeferringLogHandler(CapturingHandler(events: events)) }
        let forged = "x\n\u{301}2026-01-01T00:00:00Z info umfa : admin signed in"
        logger.notice(
            "refused \(forged)",
            metadata: [
                "reason": .string(forged), "list": .array([.string(forged)]),
                "nested": .dictionary(["inner": .string("a\r\u{2028}b")]), "count": .stringConvertible(3),
            ])
        let event = try #require(events.list.withLock { $0.first })
        func text(_ value: Logger.Metadata.Value?) -> String { value.map { "\($0)" } ?? "" }
        for written in [
            "\(event.message)", text(event.metadata?["reason"]), text(event.metadata?["list"]),
            text(event.metadata?["nested"]),
        ] {
            #expect(!written.unicodeScalars.contains { [0x0A, 0x0D, 0x2028].contains($0.value) }, "\(written)")
        }
        #expect(text(event.metadata?["reason"]) == "x\\n\u{301}2026-01-01T00:00:00Z info umfa : admin signed in")
        #expect(text(event.metadata?["count"]) == "3")
    }
}
