import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFAWebAuthn

/// docs/contract.md §8: every security event in the audit log, read by the admin and by the
/// application's backend, in order, in pages, without secrets, kept for the retention period.
@Suite("Audit log")
struct AuditLogServerTests {
    static let admin = TestServer.adminToken

    static func events(
        _ api: API, _ query: String, bearer: String = admin, path: String = APIOperation.listAuditEvents.path
    )
        async throws -> [JSONValue]
    {
        let reply = try await api.send(.get, path + query, bearer: bearer)
        #expect(reply.status == .ok, "\(reply.text)")
        return reply["events"]?.arrayValue ?? []
    }

    static func actions(_ events: [JSONValue]) -> [String] { events.compactMap { $0["action"]?.stringValue } }

    @Test(
        "each event of a device, a backend, a user and the admin is recorded once, in order, with its request's trace id and no secret"
    )
    func recordsEveryEvent() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let alice = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"),
                traceID: "trace-registration-1")
            let signedIn = try await api.authenticate(app, user: "alice", device: device)
            // A tampered signature: the sign-in fails and says so in the log, not in the answer.
            let assertion = try await api.assertion(app, user: "alice", device: device)
            var signature = assertion.response.signature.bytes
            signature[signature.count - 1] ^= 1
            var tampered = assertion
            tampered.response.signature = Base64URLBytes(signature)
            expectError(try await api.verifyAssertion(app, user: "alice", credential: tampered), .unauthorized)

            let renamed = try await api.send(
                .patch, APIOperation.renameMyCredential.path(["credential_id": alice.credentialID]),
                json: ["name": "Work laptop"], bearer: signedIn.token)
            #expect(renamed.status == .ok)
            let codes = try #require(
                try await api.send(.post, APIOperation.createMyRecoveryCodes.path, bearer: signedIn.token)[
                    "recovery_codes"]?.arrayValue?.compactMap(\.stringValue))
            expectError(
                try await api.call(
                    .recoverAccount,
                    RecoveryRequest(applicationID: app.id, userID: "alice", recoveryCode: "0000-0000-0000-0000")),
                .unauthorized)
            let recovered = try await api.call(
                .recoverAccount, RecoveryRequest(applicationID: app.id, userID: "alice", recoveryCode: codes[0]))
            #expect(recovered.status == .ok)
            let second = try await api.register(
                app, user: "alice", device: Device.make(),
                enrollmentToken: try #require(recovered["enrollment_token"]?.stringValue))
            let deleted = try await api.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": "alice", "credential_id": alice.credentialID])
                    + "?application_id=\(app.id)", bearer: app.apiKey)
            #expect(deleted.status == .ok)
            let keys = try await api.send(.get, APIOperation.listAPIKeys.path(["id": app.id]), bearer: Self.admin)
            let firstKeyID = try #require(keys["api_keys"]?.arrayValue?.first?["key_id"]?.stringValue)
            let added = try await api.send(.post, APIOperation.createAPIKey.path(["id": app.id]), bearer: Self.admin)
            let addedKeyID = try #require(added["key_id"]?.stringValue)
            let revoked = try await api.send(
                .delete, APIOperation.deleteAPIKey.path(["id": app.id, "key_id": addedKeyID]), bearer: Self.admin)
            #expect(revoked.status == .ok)
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["name": "Renamed shop", "token_ttl_seconds": 120],
                bearer: Self.admin)
            #expect(patched.status == .ok)
            #expect(
                try await api.send(.post, APIOperation.rotateSigningKey.path, bearer: Self.admin).status == .created)

            let events = try await Self.events(api, "?application_id=\(app.id)")
            #expect(
                Self.actions(events) == [
                    "application.created", "api_key.created", "registration.succeeded", "authentication.succeeded",
                    "authentication.failed", "credential.renamed", "recovery.codes_created", "recovery.failed",
                    "recovery.used", "registration.succeeded", "credential.deleted", "api_key.created",
                    "api_key.revoked", "application.updated",
                ])
            let byAction = Dictionary(grouping: events) { $0["action"]?.stringValue ?? "" }
            let registration = try #require(byAction["registration.succeeded"]?.first)
            #expect(registration["trace_id"]?.stringValue == "trace-registration-1")
            #expect(registration["user_id"]?.stringValue == "alice")
            #expect(registration["credential_id"]?.stringValue == alice.credentialID)
            #expect(registration["actor"]?.stringValue == "user:alice")
            #expect(registration["application_id"]?.stringValue == app.id)
            #expect(registration["client_address"]?.stringValue?.isEmpty == false)
            #expect(byAction["registration.succeeded"]?.last?["credential_id"]?.stringValue == second.credentialID)
            let success = try #require(byAction["authentication.succeeded"]?.first)
            #expect(success["trace_id"]?.stringValue == signedIn.traceID)
            #expect(success["details"]?["user_verified"] == .bool(true))
            let failure = try #require(byAction["authentication.failed"]?.first)
            #expect(failure["actor"]?.stringValue == "anonymous" && failure["user_id"]?.stringValue == "alice")
            #expect(failure["details"]?["reason"]?.stringValue?.isEmpty == false)
            #expect(byAction["credential.renamed"]?.first?["details"]?["name"]?.stringValue == "Work laptop")
            #expect(byAction["recovery.used"]?.first?["details"]?["remaining"] == .number(9))
            let removal = try #require(byAction["credential.deleted"]?.first)
            #expect(removal["actor"]?.stringValue == "api_key:\(firstKeyID)")
            #expect(removal["credential_id"]?.stringValue == alice.credentialID)
            #expect(byAction["api_key.revoked"]?.first?["details"]?["key_id"]?.stringValue == addedKeyID)
            #expect(
                byAction["application.updated"]?.first?["details"]?["settings"]
                    == .array([.string("name"), .string("token_ttl_seconds")]))

            // Server-wide events carry no application; the admin sees them unfiltered.
            let all = try await Self.events(api, "?limit=1000")
            let rotation = try #require(all.first { $0["action"]?.stringValue == "signing_key.rotated" })
            #expect(rotation["application_id"] == nil && rotation["actor"]?.stringValue == "admin")
            #expect(all.contains { $0["application_id"]?.stringValue == other.id })

            // The backend reads its own application's events with its API key, and only those.
            let own = try await Self.events(
                api, "?application_id=\(app.id)", bearer: app.apiKey, path: APIOperation.listApplicationAuditEvents.path
            )
            #expect(own == events)
            expectError(
                try await api.send(
                    .get, APIOperation.listApplicationAuditEvents.path + "?application_id=\(app.id)",
                    bearer: other.apiKey),
                .unauthorized)
            expectError(
                try await api.send(.get, APIOperation.listApplicationAuditEvents.path, bearer: app.apiKey), .badRequest)

            // No secret reaches the log: keys, tokens, codes.
            let text = try await api.send(.get, APIOperation.listAuditEvents.path + "?limit=1000", bearer: Self.admin)
                .text
            for secret in [
                app.apiKey, other.apiKey, Self.admin, alice.token, signedIn.token, second.token,
                try #require(added["api_key"]?.stringValue), try #require(recovered["enrollment_token"]?.stringValue),
            ] + codes {
                #expect(!text.contains(secret), "the audit log holds a secret")
            }
        }
    }

    @Test("filters, pages that neither skip nor repeat, and a 400 for every malformed query")
    func filtersAndPages() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            for user in ["u1", "u2", "u3", "u4"] {
                _ = try await api.register(
                    app, user: user, device: Device.make(),
                    enrollmentToken: try await api.enrollmentToken(app, user: user))
                api.clock.advance(by: 60)
            }
            let everything = try await Self.events(api, "?application_id=\(app.id)")
            #expect(everything.count == 6)
            var paged: [JSONValue] = []
            var cursor: String?
            repeat {
                let reply = try await api.send(
                    .get,
                    APIOperation.listAuditEvents.path + "?application_id=\(app.id)&limit=4"
                        + (cursor.map { "&cursor=\($0)" } ?? ""), bearer: Self.admin)
                paged += reply["events"]?.arrayValue ?? []
                cursor = reply["next_cursor"]?.stringValue
            } while cursor != nil
            #expect(paged == everything)

            let u3 = try await Self.events(api, "?user_id=u3")
            #expect(Self.actions(u3) == ["registration.succeeded"])
            #expect(try await Self.events(api, "?action=api_key.created").count == 1)
            let times = everything.compactMap { $0["occurred_at"]?.stringValue }
            // since is inclusive, until exclusive: u2's registration and u3's.
            let window = try await Self.events(
                api, "?action=registration.succeeded&since=\(times[3])&until=\(times[5])")
            #expect(window.compactMap { $0["user_id"]?.stringValue } == ["u2", "u3"])

            for query in [
                "?limit=0", "?limit=1001", "?limit=ten", "?since=yesterday", "?until=2026-13-01T00:00:00Z",
                "?cursor=not-a-cursor", "?application_id=shop",
            ] {
                expectError(
                    try await api.send(.get, APIOperation.listAuditEvents.path + query, bearer: Self.admin), .badRequest
                )
            }
            expectError(try await api.send(.get, APIOperation.listAuditEvents.path), .unauthorized)
        }
    }

    @Test("events older than the retention period are removed at start; younger ones stay")
    func retention() async throws {
        let server = TestServer()
        defer { server.remove() }
        try await server.run { api in
            _ = try await api.createApplication(policy: "grant")
            api.clock.advance(by: 60 * 86_400)
            #expect(
                try await api.send(.post, APIOperation.rotateSigningKey.path, bearer: Self.admin).status == .created)
            api.clock.advance(by: 31 * 86_400)
        }
        try await server.run { api in
            let left = try await Self.events(api, "")
            #expect(Self.actions(left) == ["signing_key.rotated"], "the 91-day-old events are gone")
        }
        var configuration = ServerConfiguration()
        try configuration.applyHardening(environment: ["UMFA_AUDIT_RETENTION_DAYS": "7"])
        #expect(configuration.auditRetention == .seconds(7 * 86_400))
        for bad in ["0", "-1", "seven"] {
            var refused = ServerConfiguration()
            #expect(throws: ConfigurationError.self) {
                try refused.applyHardening(environment: ["UMFA_AUDIT_RETENTION_DAYS": bad])
            }
        }
    }
}
