import Foundation
import Testing
import UMFAStorage

@testable import UMFAServer

/// The console's sessions and the admin authorization built from their ports alone (a SQLite
/// file, the admin token's hash, the abuse guard): a CSRF token is its session's, a session
/// ends with its lifetime and with the admin token its passkey was enrolled under
/// (docs/contract.md §8), and wrong admin tokens count without locking out the right one
/// (docs/contract.md §4). No server.
@Suite("Console sessions from their ports: CSRF bound to the session, lifetime, token epoch, admin token")
struct ConsoleSessionsFeatureTests {
    static let adminToken = "umfa-feature-admin-token"

    static func epoch(_ ports: FeaturePorts, adminToken: String = adminToken) -> ConsoleTokenEpoch {
        ConsoleTokenEpoch(
            adminToken: AdminToken(hash: Secrets.hash(adminToken)), store: ports.store, audit: ports.audit,
            logger: ports.logger)
    }

    static func sessions(_ ports: FeaturePorts, adminToken: String = adminToken) -> ConsoleSessions {
        ConsoleSessions(
            store: ports.store, epoch: epoch(ports, adminToken: adminToken), serverSecret: ports.serverSecret,
            now: ports.now)
    }

    /// Enrolls an operator passkey under `adminToken`'s epoch (`nil`: stored before epochs were kept).
    static func enroll(_ ports: FeaturePorts, under adminToken: String? = adminToken) async throws -> [UInt8] {
        let id = Secrets.randomBytes(16)
        try await ports.store.insertConsoleCredential(
            ConsoleCredentialRecord(
                credentialID: id, publicKey: Secrets.randomBytes(77), signCount: 0,
                userHandle: Secrets.randomBytes(32), backupEligible: false, name: "Operator",
                createdAt: ports.clock.now,
                tokenEpoch: adminToken.map { epoch(ports, adminToken: $0).current }))
        return id
    }

    @Test("a CSRF token authorizes only the session it was derived from, and only with it")
    func csrfBoundToSession() async throws {
        try await FeaturePorts.with { ports in
            let sessions = Self.sessions(ports)
            let first = try await sessions.start(credentialID: try await Self.enroll(ports))
            let second = try await sessions.start(credentialID: try await Self.enroll(ports))
            let token = sessions.csrfToken(for: first.value)
            #expect(try await sessions.authorized(cookie: first.value, csrfToken: token)?.value == first.value)
            #expect(try await sessions.authorized(cookie: second.value, csrfToken: token) == nil)
            #expect(try await sessions.authorized(cookie: first.value, csrfToken: nil) == nil)
            #expect(try await sessions.authorized(cookie: nil, csrfToken: token) == nil)
            // The cookie is stored only as its hash.
            #expect(first.record.sessionHash == Secrets.hash(first.value))
        }
    }

    @Test("a session lasts eight hours from its start and is not extended by use")
    func lifetime() async throws {
        try await FeaturePorts.with { ports in
            let sessions = Self.sessions(ports)
            let session = try await sessions.start(credentialID: try await Self.enroll(ports))
            ports.clock.advance(by: ConsoleSessions.lifetime - 1)
            #expect(try await sessions.current(cookie: session.value) != nil)
            ports.clock.advance(by: 2)
            #expect(try await sessions.current(cookie: session.value) == nil)
        }
    }

    @Test("a passkey of an earlier admin token signs nothing in, and the new token's start removes it")
    func earlierTokenEpochRefused() async throws {
        try await FeaturePorts.with { ports in
            let old = Self.sessions(ports, adminToken: "umfa-old-admin-token")
            let oldSession = try await old.start(
                credentialID: try await Self.enroll(ports, under: "umfa-old-admin-token"))
            let legacy = try await old.start(credentialID: try await Self.enroll(ports, under: nil))
            let current = Self.sessions(ports)
            let kept = try await current.start(credentialID: try await Self.enroll(ports))
            #expect(try await old.current(cookie: oldSession.value) != nil)
            #expect(try await current.current(cookie: oldSession.value) == nil)
            #expect(try await current.current(cookie: legacy.value) == nil)
            let forged = current.csrfToken(for: oldSession.value)
            #expect(try await current.authorized(cookie: oldSession.value, csrfToken: forged) == nil)

            try await Self.epoch(ports).enforce()
            #expect(try await ports.store.consoleCredentials().map(\.credentialID) == [kept.record.credentialID])
            #expect(try await current.current(cookie: kept.value) != nil)
            let events = try await ports.events(.adminPasskeysRevoked)
            #expect(events.count == 1)
            #expect(events.first?.details["passkeys"] == .number(2))
            #expect(events.first?.details["reason"] == .string("admin_token_changed"))
            // Once is enough: a second start with the same token records nothing more.
            try await Self.epoch(ports).enforce()
            #expect(try await ports.events(.adminPasskeysRevoked).count == 1)
        }
    }

    @Test("wrong admin tokens count against the address and block it; the right token still passes there")
    func adminTokenGuessing() async throws {
        try await FeaturePorts.with(limits: AbuseLimits(credentialFailures: 3, window: .seconds(60))) { ports in
            let authorization = AdminTokenCheck(
                adminToken: AdminToken(hash: Secrets.hash(Self.adminToken)), abuse: ports.abuse)
            func caller(_ bearer: String?) -> Caller {
                Caller(traceID: "trace-admin", clientAddress: "203.0.113.66", bearer: bearer)
            }
            // A missing token is refused but not counted as a guess.
            for _ in 0..<5 {
                let missing = await #expect(throws: ServiceError.self) {
                    try await authorization.authorize(caller(nil))
                }
                #expect(missing?.code == .unauthenticated)
            }
            for guess in 0..<3 {
                let wrong = await #expect(throws: ServiceError.self) {
                    try await authorization.authorize(caller("umfa-guess-\(guess)"))
                }
                #expect(wrong?.code == .unauthenticated)
            }
            let blocked = await #expect(throws: ServiceError.self) {
                try await authorization.authorize(caller("umfa-guess-4"))
            }
            #expect(blocked?.code == .rateLimited(retryAfterSeconds: 30))
            try await authorization.authorize(caller(Self.adminToken))
        }
    }
}
