import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §8: `/api/umfa/me/…` for the signed-in user (a login token at most 5 minutes old),
/// and recovery codes that turn into an enrollment token.
@Suite("Self-service and recovery codes")
struct SelfServiceTests {
    /// A user with `devices` passkeys; the last registration's login token.
    static func user(_ api: API, _ app: TestApplication, _ name: String, devices: Int) async throws -> (
        token: String, credentials: [String]
    ) {
        var result: CeremonyResult?
        var credentials: [String] = []
        for _ in 0..<devices {
            let made = try await api.register(
                app, user: name, device: Device.make(), enrollmentToken: try await api.enrollmentToken(app, user: name))
            credentials.append(made.credentialID)
            result = made
        }
        return (try #require(result).token, credentials)
    }

    static func path(_ operation: APIOperation, credential: String? = nil, query: String = "") -> String {
        operation.path(credential.map { ["credential_id": $0] } ?? [:]) + query
    }

    @Test("list, rename and delete one's own passkeys; the last only with confirm_last=true")
    func credentials() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (token, ids) = try await Self.user(api, app, "alice", devices: 2)
            let bob = try await Self.user(api, app, "bob", devices: 1)

            let listed = try await api.send(.get, Self.path(.listMyCredentials), bearer: token)
            #expect(listed.status == .ok, "\(listed.text)")
            let items = try #require(listed["credentials"]?.arrayValue)
            #expect(Set(items.compactMap { $0["credential_id"]?.stringValue }) == Set(ids))
            #expect(items.allSatisfy { $0["public_key"] == nil && $0["backed_up"] != nil })

            let renamed = try await api.send(
                .patch, Self.path(.renameMyCredential, credential: ids[0]), json: ["name": "  Work laptop "],
                bearer: token)
            #expect(renamed.status == .ok && renamed["name"]?.stringValue == "Work laptop", "\(renamed.text)")
            #expect(renamed["trace_id"] != nil && renamed["credential_id"]?.stringValue == ids[0])
            for bad: JSONValue in [
                ["name": ""], ["name": .string(String(repeating: "x", count: 65))], ["name": "a\u{7}"],
            ] {
                expectError(
                    try await api.send(
                        .patch, Self.path(.renameMyCredential, credential: ids[0]), json: bad, bearer: token),
                    .badRequest)
            }
            // Another user's passkey is unknown to this one, for renaming and deleting.
            expectError(
                try await api.send(
                    .patch, Self.path(.renameMyCredential, credential: bob.credentials[0]), json: ["name": "mine"],
                    bearer: token), .notFound)
            expectError(
                try await api.send(
                    .delete, Self.path(.deleteMyCredential, credential: bob.credentials[0]), bearer: token),
                .notFound)

            #expect(
                try await api.send(.delete, Self.path(.deleteMyCredential, credential: ids[1]), bearer: token)[
                    "removed"]
                    == true)
            // The login token came from the passkey just deleted (the last registered): it ends with it.
            let last = try await api.send(.delete, Self.path(.deleteMyCredential, credential: ids[0]), bearer: token)
            #expect(last.status == .unauthorized, "the token of the deleted passkey no longer works: \(last.text)")
        }
    }

    @Test("the last passkey: 409 without confirm_last, deleted with it")
    func lastCredential() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (token, ids) = try await Self.user(api, app, "carol", devices: 1)
            let refused = try await api.send(.delete, Self.path(.deleteMyCredential, credential: ids[0]), bearer: token)
            expectError(refused, .conflict)
            #expect(refused["message"]?.stringValue?.contains("confirm_last=true") == true)
            let listed = try await api.send(.get, Self.path(.listMyCredentials), bearer: token)
            #expect(listed["credentials"]?.arrayValue?.count == 1)
            let removed = try await api.send(
                .delete, Self.path(.deleteMyCredential, credential: ids[0], query: "?confirm_last=true"), bearer: token)
            #expect(removed.status == .ok && removed["removed"] == true, "\(removed.text)")
        }
    }

    @Test("no token, a forged or stale token, another application's API key: 401 and nothing shown")
    func authorisation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (token, _) = try await Self.user(api, app, "dave", devices: 1)
            for bearer in [nil, "eyJ.made.up", app.apiKey, TestServer.adminToken, token + "x"] {
                let reply = try await api.send(.get, Self.path(.listMyCredentials), bearer: bearer)
                expectError(reply, .unauthorized)
            }
            api.clock.advance(by: 301)
            let stale = try await api.send(.get, Self.path(.listMyCredentials), bearer: token)
            expectError(stale, .unauthorized)
        }
    }

    @Test("recovery codes: ten shown once, each redeemed once for an enrollment token that adds a passkey")
    func recovery() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (token, _) = try await Self.user(api, app, "erin", devices: 1)
            let made = try await api.send(.post, Self.path(.createMyRecoveryCodes), bearer: token)
            #expect(made.status == .created, "\(made.text)")
            let codes = made["recovery_codes"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}/) != nil })
            #expect(try await api.send(.get, Self.path(.countMyRecoveryCodes), bearer: token)["remaining"] == 10)

            // Typed in lower case without dashes: still the code.
            let typed = codes[3].lowercased().replacingOccurrences(of: "-", with: "")
            let redeemed = try await api.call(
                .recoverAccount, RecoveryRequest(applicationID: app.id, userID: "erin", recoveryCode: typed))
            #expect(redeemed.status == .ok, "\(redeemed.text)")
            let enrollment = try #require(redeemed["enrollment_token"]?.stringValue)
            let again = try await api.call(
                .recoverAccount, RecoveryRequest(applicationID: app.id, userID: "erin", recoveryCode: codes[3]))
            expectError(again, .unauthorized, message: "Recovery failed")
            // The enrollment token adds a passkey on a new device.
            let device = Device.make()
            let added = try await api.register(app, user: "erin", device: device, enrollmentToken: enrollment)
            #expect(!added.credentialID.isEmpty)
            let fresh = try await api.authenticate(app, user: "erin", device: device)
            #expect(try await api.send(.get, Self.path(.countMyRecoveryCodes), bearer: fresh.token)["remaining"] == 9)

            // Another user's code is no code for this user; new codes replace the old ones.
            expectError(
                try await api.call(
                    .recoverAccount, RecoveryRequest(applicationID: app.id, userID: "frank", recoveryCode: codes[4])),
                .unauthorized)
            _ = try await api.send(.post, Self.path(.createMyRecoveryCodes), bearer: fresh.token)
            expectError(
                try await api.call(
                    .recoverAccount, RecoveryRequest(applicationID: app.id, userID: "erin", recoveryCode: codes[4])),
                .unauthorized)
        }
    }

    @Test("the backend issues codes with its API key, for its own users only")
    func backendIssues() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            _ = try await Self.user(api, app, "gina", devices: 1)
            let path = APIOperation.createUserRecoveryCodes.path(["user_id": "gina"])
            let made = try await api.send(.post, path, json: ["application_id": .string(app.id)], bearer: app.apiKey)
            #expect(made.status == .created && made["recovery_codes"]?.arrayValue?.count == 10, "\(made.text)")
            expectError(
                try await api.send(.post, path, json: ["application_id": .string(app.id)], bearer: other.apiKey),
                .unauthorized)
            expectError(
                try await api.send(
                    .post, APIOperation.createUserRecoveryCodes.path(["user_id": "nobody"]),
                    json: ["application_id": .string(app.id)], bearer: app.apiKey), .notFound)
        }
    }

    @Test("wrong codes are rate limited like sign-ins; one code sent ten times at once works once")
    func guessingAndRaces() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (token, _) = try await Self.user(api, app, "hank", devices: 1)
            let made = try await api.send(.post, Self.path(.createMyRecoveryCodes), bearer: token)
            let codes = made["recovery_codes"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            try #require(codes.count == 10)
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await api.call(
                            .recoverAccount,
                            RecoveryRequest(applicationID: app.id, userID: "hank", recoveryCode: codes[0]))
                    }
                }
                var all: [Reply] = []
                for try await reply in group { all.append(reply) }
                return all
            }
            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.status))")
            var statuses: [Int] = []
            // The default limit is 50 failures per user and address.
            for attempt in 0..<60 {
                let reply = try await api.call(
                    .recoverAccount,
                    RecoveryRequest(applicationID: app.id, userID: "hank", recoveryCode: "WRONG-CODE-\(attempt)"))
                statuses.append(Int(reply.status.code))
            }
            #expect(statuses.contains(429), "\(statuses)")
            #expect(statuses.allSatisfy { [401, 429].contains($0) })
        }
    }
}
