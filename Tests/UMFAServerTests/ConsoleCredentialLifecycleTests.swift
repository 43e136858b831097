import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATestSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

@testable import UMFAServer

/// An operator passkey stands for the admin token it was enrolled with, and no
/// longer. The admin API lists and removes passkeys and sessions; a start with another admin
/// token removes every passkey and session of the earlier one, also on PostgreSQL instances.
@Suite("Admin console passkeys: lifecycle")
struct ConsoleCredentialLifecycleTests {
    static let otherToken = "umfa-test-other-admin-token-fedcba9876543210"

    /// Enrolls a console passkey with `token` and returns its session.
    static func enroll(_ api: API, device: Device, token: String, name: String) async throws
        -> ConsoleTests.Session
    {
        let options = try await api.post(APIOperation.consoleEnrollOptions.path, ["admin_token": .string(token)])
        #expect(options.status == .ok, "\(options.text)")
        let publicKey = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
        let credential = try device.create(publicKey, userVerified: true)
        let reply = try await api.post(
            APIOperation.consoleEnroll.path,
            ["admin_token": .string(token), "credential": try .encoding(credential), "name": .string(name)])
        #expect(reply.status == .ok, "\(reply.text)")
        return try ConsoleTests.session(reply)
    }

    /// A sign-in with the device's console passkey.
    static func signIn(_ api: API, device: Device) async throws -> Reply {
        let assertion = try await ConsoleTests.assertion(api, device: device)
        return try await api.post("/admin/session", ["credential": try .encoding(assertion)])
    }

    /// The status of an admin call made with a console session.
    static func adminCall(_ api: API, _ session: ConsoleTests.Session) async throws -> HTTPResponse.Status {
        try await ConsoleTests.request(
            api, .get, APIOperation.listApplications.path, cookie: session.cookie, csrf: session.csrf
        ).status
    }

    static func events(_ api: API, _ action: String, token: String) async throws -> [JSONValue] {
        let reply = try await api.send(
            .get, APIOperation.listAuditEvents.path + "?action=\(action)&limit=1000", bearer: token)
        #expect(reply.status == .ok, "\(reply.text)")
        return reply["events"]?.arrayValue ?? []
    }

    @Test("a passkey enrolled under one admin token opens nothing after a restart with another")
    func restartWithAnotherToken() async throws {
        let server = TestServer()
        defer { server.remove() }
        let device = Device.make(origin: ConsoleTests.origin)
        let session = try await server.run { api in
            let session = try await Self.enroll(api, device: device, token: TestServer.adminToken, name: "Ops laptop")
            #expect(try await Self.adminCall(api, session) == .ok)
            return session
        }

        var rotated = server
        rotated.adjust = { $0.adminToken = Self.otherToken }
        try await rotated.run { api in
            // The session of the old token's passkey is over, on the admin API and on the page.
            #expect(try await Self.adminCall(api, session) == .unauthorized)
            expectError(
                try await ConsoleTests.request(api, .get, APIOperation.consoleSession.path, cookie: session.cookie),
                .unauthorized)
            // The passkey itself signs nothing in.
            expectError(
                try await Self.signIn(api, device: device), .unauthorized, message: "Sign-in failed",
                reason: "unknown_credential")
            // It is gone, and the old token is no admin token any more.
            let listed = try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: Self.otherToken)
            #expect(listed.status == .ok && listed["credentials"]?.arrayValue?.isEmpty == true, "\(listed.text)")
            let sessions = try await api.send(.get, APIOperation.listConsoleSessions.path, bearer: Self.otherToken)
            #expect(sessions["sessions"]?.arrayValue?.isEmpty == true, "\(sessions.text)")
            expectError(
                try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: TestServer.adminToken),
                .unauthorized)
            let revoked = try await Self.events(api, "admin.passkeys_revoked", token: Self.otherToken)
            #expect(revoked.count == 1)
            #expect(revoked.first?["details"]?["passkeys"] == .number(1))
            #expect(revoked.first?["details"]?["sessions"] == .number(1))
            #expect(revoked.first?["details"]?["reason"]?.stringValue == "admin_token_changed")
            // A passkey enrolled with the new token works.
            let fresh = try await Self.enroll(
                api, device: Device.make(origin: ConsoleTests.origin), token: Self.otherToken, name: "New laptop")
            #expect(try await Self.adminCall(api, fresh) == .ok)
        }
        // A restart with the same token removes nothing more.
        try await rotated.run { api in
            #expect(try await Self.events(api, "admin.passkeys_revoked", token: Self.otherToken).count == 1)
            let listed = try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: Self.otherToken)
            #expect(listed["credentials"]?.arrayValue?.count == 1, "\(listed.text)")
        }
    }

    @Test("list passkeys and sessions, end a session, remove a passkey and its sessions; each is audited")
    func listAndDelete() async throws {
        try await TestServer.with { api in
            let admin = TestServer.adminToken
            let first = Device.make(origin: ConsoleTests.origin)
            let second = Device.make(origin: ConsoleTests.origin)
            // A second apart each, so "oldest first" has one answer.
            let a1 = try await Self.enroll(api, device: first, token: admin, name: "First")
            api.clock.advance(by: 1)
            let b1 = try await Self.enroll(api, device: second, token: admin, name: "Second")
            api.clock.advance(by: 1)
            let a2 = try ConsoleTests.session(try await Self.signIn(api, device: first))

            // Nobody without the admin token or a session lists anything.
            expectError(try await api.send(.get, APIOperation.listConsoleCredentials.path), .unauthorized)
            expectError(
                try await api.send(.get, APIOperation.listConsoleSessions.path, bearer: "umfa-wrong"), .unauthorized)

            let credentials = try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: admin)
            let list = try #require(credentials["credentials"]?.arrayValue, "\(credentials.text)")
            #expect(list.map { $0["name"]?.stringValue } == ["First", "Second"])
            #expect(list.map { $0["sessions"] } == [.number(2), .number(1)])
            #expect(!credentials.text.contains("public_key") && !credentials.text.contains(a1.cookie))
            let firstID = try #require(list.first?["credential_id"]?.stringValue)

            // The session list marks the caller's own session and never shows a cookie.
            let sessions = try await ConsoleTests.request(
                api, .get, APIOperation.listConsoleSessions.path, cookie: b1.cookie, csrf: b1.csrf)
            let rows = try #require(sessions["sessions"]?.arrayValue, "\(sessions.text)")
            #expect(rows.count == 3)
            #expect(rows.filter { $0["current"] == .bool(true) }.map { $0["passkey_name"]?.stringValue } == ["Second"])
            for session in [a1, a2, b1] {
                #expect(!sessions.text.contains(session.cookie) && !sessions.text.contains(session.csrf))
            }

            // Ending one session ends only that one.
            let a2ID = try #require(
                rows.first { row in
                    row["session_id"]?.stringValue == Base64URL.encode(Secrets.hash(a2.cookie))
                }?["session_id"]?.stringValue)
            let ended = try await api.send(
                .delete, APIOperation.deleteConsoleSession.path(["session_id": a2ID]), bearer: admin)
            #expect(ended.status == .ok, "\(ended.text)")
            #expect(try await Self.adminCall(api, a2) == .unauthorized)
            #expect(try await Self.adminCall(api, a1) == .ok)
            expectError(
                try await api.send(
                    .delete, APIOperation.deleteConsoleSession.path(["session_id": a2ID]), bearer: admin), .notFound)
            expectError(
                try await api.send(
                    .delete, APIOperation.deleteConsoleSession.path(["session_id": "not-an-id"]), bearer: admin),
                .badRequest)

            // Removing a passkey (here from another operator's session) ends its sessions and sign-ins.
            let removed = try await ConsoleTests.request(
                api, .delete, APIOperation.deleteConsoleCredential.path(["credential_id": firstID]), cookie: b1.cookie,
                csrf: b1.csrf)
            #expect(removed.status == .ok && removed["sessions_ended"] == .number(1), "\(removed.text)")
            #expect(try await Self.adminCall(api, a1) == .unauthorized)
            expectError(
                try await Self.signIn(api, device: first), .unauthorized, message: "Sign-in failed",
                reason: "unknown_credential")
            #expect(try await Self.adminCall(api, b1) == .ok)
            expectError(
                try await api.send(
                    .delete, APIOperation.deleteConsoleCredential.path(["credential_id": firstID]), bearer: admin),
                .notFound)
            expectError(
                try await api.send(.delete, "/api/admin/console/credentials/%21%21", bearer: admin), .badRequest)
            let remaining = try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: admin)
            #expect(remaining["credentials"]?.arrayValue?.map { $0["name"]?.stringValue } == ["Second"])

            let removal = try await Self.events(api, "admin.passkey_removed", token: admin)
            #expect(removal.count == 1 && removal.first?["credential_id"]?.stringValue == firstID)
            #expect(removal.first?["details"]?["sessions_ended"] == .number(1))
            #expect(removal.first?["actor"]?.stringValue == "admin")
            let endings = try await Self.events(api, "admin.session_ended", token: admin)
            #expect(endings.count == 1 && endings.first?["credential_id"]?.stringValue == firstID)
        }
    }

    @Test("a passkey stored without an epoch (enrolled before epochs were kept) is removed at the next start")
    func passkeyWithoutEpoch() async throws {
        let server = TestServer()
        defer { server.remove() }
        let device = Device.make(origin: ConsoleTests.origin)
        try await server.run { api in
            _ = try await Self.enroll(api, device: device, token: TestServer.adminToken, name: "Old laptop")
        }
        // What an enrollment before this release left: the same passkey, no epoch.
        let store = try await SQLiteStore.open(
            path: server.directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "test"))
        let stored = try #require(try await store.consoleCredentials().first)
        #expect(stored.tokenEpoch != nil)
        var legacy = stored
        legacy.tokenEpoch = nil
        #expect(try await store.deleteConsoleCredential(id: stored.credentialID) == 1)
        try await store.insertConsoleCredential(legacy)
        try await store.close()

        try await server.run { api in
            expectError(
                try await Self.signIn(api, device: device), .unauthorized, message: "Sign-in failed",
                reason: "unknown_credential")
            let listed = try await api.send(
                .get, APIOperation.listConsoleCredentials.path, bearer: TestServer.adminToken)
            #expect(listed["credentials"]?.arrayValue?.isEmpty == true, "\(listed.text)")
            #expect(try await Self.events(api, "admin.passkeys_revoked", token: TestServer.adminToken).count == 1)
        }
    }

    @Test("a generated admin token (stored hashed) keeps its passkeys across restarts; a configured one ends them")
    func generatedAdminToken() async throws {
        let server = TestServer()
        defer { server.remove() }
        var generated = server
        generated.adjust = { $0.adminToken = nil }
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let device = Device.make(origin: ConsoleTests.origin)

        let (first, report) = try await buildApplication(configuration: generated.configuration, logger: logger)
        let token = try #require(report.generatedAdminToken)
        try await first.exercise(.router) { client in
            let api = API(client: client, clock: server.clock, directory: server.directory)
            _ = try await Self.enroll(api, device: device, token: token, name: "Ops laptop")
        }
        try await generated.run { api in
            let session = try ConsoleTests.session(try await Self.signIn(api, device: device))
            #expect(try await Self.adminCall(api, session) == .ok)
            #expect(try await Self.events(api, "admin.passkeys_revoked", token: token).isEmpty)
        }
        var configured = server
        configured.adjust = { $0.adminToken = Self.otherToken }
        try await configured.run { api in
            expectError(
                try await Self.signIn(api, device: device), .unauthorized, message: "Sign-in failed",
                reason: "unknown_credential")
            #expect(try await Self.events(api, "admin.passkeys_revoked", token: Self.otherToken).count == 1)
        }
    }
}
