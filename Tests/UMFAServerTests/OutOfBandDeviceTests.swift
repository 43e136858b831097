import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// docs/contract.md §7, the device's side after enrollment: a device key registered with the passkey,
/// device proofs signed with it, pending approvals by fetch and by event stream; and webhooks.
@Suite("Out-of-band devices, pending approvals and webhooks")
struct OutOfBandDeviceTests {
    static let base = "http://127.0.0.1:0"

    /// Enrolls `user` out of band with a device key; the phone's passkey and device key.
    static func enroll(_ api: API, _ app: TestApplication, user: String) async throws -> (Device, DPoPKey, String) {
        let started = try await api.post(
            APIOperation.outOfBandEnroll.path, ["application_id": .string(app.id), "user_id": .string(user)],
            bearer: app.apiKey)
        let link = try #require(started["enrollment"]?["appLinkUri"]?.stringValue)
        let redeemed = try await OutOfBandTests.redeem(api, link: link)
        let transaction = try #require(redeemed["transaction_id"]?.stringValue)
        let phone = Device.make()
        let credential = try phone.create(
            try #require(redeemed["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
        var key = DPoPKey()
        let clock = api.clock
        key.now = { clock.now }
        let jwk: JSONValue = .object(key.jwk.mapValues { .string($0) })
        let done = try await OutOfBandTests.complete(
            api, transaction, credential,
            extra: ["device": ["name": "Phone", "push_token": "fcm-token-1", "key": jwk]])
        #expect(done["status"]?.stringValue == "succeeded", "\(done.text)")
        return (phone, key, try #require(done["credential_id"]?.stringValue))
    }

    /// A device proof: typ umfa-device+jwt, sub the credential.
    static func proof(
        _ key: DPoPKey, credential: String, _ method: String, _ path: String, claims: [String: Any?] = [:],
        header: [String: Any?] = [:]
    ) -> String {
        var claims = claims
        if claims["sub"] == nil { claims["sub"] = credential }
        var header = header
        header["typ"] = header["typ"] ?? "umfa-device+jwt"
        header["jwk"] = .some(nil)
        return key.proof(method, base + path, header: header, claims: claims)
    }

    static func pending(_ api: API, _ app: TestApplication, user: String, proof: String?) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let proof { headers[.authorization] = "UMFA-Device \(proof)" }
        let body = try JSONEncoder().encode(
            JSONValue.object(["application_id": .string(app.id), "user_id": .string(user)]))
        let response = try await api.client.execute(
            uri: APIOperation.pendingApprovals.path, method: .post, headers: headers, body: ByteBuffer(bytes: body))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    @Test("a device key from the enrollment signs device proofs; pending approvals come with links that redeem once")
    func pendingApprovals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (phone, key, credential) = try await Self.enroll(api, app, user: "alice")
            let path = APIOperation.pendingApprovals.path
            let empty = try await Self.pending(
                api, app, user: "alice", proof: Self.proof(key, credential: credential, "POST", path))
            #expect(empty.status == .ok && empty["approvals"]?.arrayValue?.isEmpty == true, "\(empty.text)")

            let first = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay 9 EUR"])
            _ = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Sign in?"])
            _ = try await OutOfBandTests.approval(api, app, ["message": "Anyone (QR only)"])
            let listed = try await Self.pending(
                api, app, user: "alice", proof: Self.proof(key, credential: credential, "POST", path))
            let approvals = try #require(listed["approvals"]?.arrayValue)
            #expect(approvals.compactMap { $0["message"]?.stringValue } == ["Pay 9 EUR", "Sign in?"])
            #expect(approvals.first?["transaction_id"] == first["transactionId"])

            // The listed link is the QR code's: it redeems once, then the approval is no longer pending.
            let payload = try #require(approvals.first?["dispatchTokenResponse"]?.stringValue)
            let link = try #require(first["appLinkUri"]?.stringValue)
            #expect(link.hasSuffix("=" + payload))
            let (transaction, assertion) = try await OutOfBandTests.sign(api, first, device: phone)
            #expect(try await OutOfBandTests.complete(api, transaction, assertion)["status"] == "succeeded")
            let after = try await Self.pending(
                api, app, user: "alice", proof: Self.proof(key, credential: credential, "POST", path))
            #expect(after["approvals"]?.arrayValue?.compactMap { $0["message"]?.stringValue } == ["Sign in?"])
        }
    }

    @Test("device proofs are refused without a key, replayed, for another user, URL, method or time, or badly typed")
    func refusedProofs() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (_, key, credential) = try await Self.enroll(api, app, user: "alice")
            _ = try await Self.enroll(api, app, user: "bob")
            let (_, accentKey, accentCredential) = try await Self.enroll(api, app, user: "\u{e9}")
            _ = try await Self.enroll(api, app, user: "e\u{301}")
            // A passkey registered without a device key (the ordinary way) has no proofs.
            let plain = Device.make()
            let carol = try await api.register(
                app, user: "carol", device: plain, enrollmentToken: try await api.enrollmentToken(app, user: "carol"))
            let path = APIOperation.pendingApprovals.path
            let replayed = Self.proof(key, credential: credential, "POST", path)
            #expect(try await Self.pending(api, app, user: "alice", proof: replayed).status == .ok)
            let stranger = DPoPKey()
            let refused: [(String, String?, String)] = [
                ("no proof", nil, "alice"),
                ("replayed", replayed, "alice"),
                ("another user's", Self.proof(key, credential: credential, "POST", path), "bob"),
                (
                    "another URL", Self.proof(key, credential: credential, "POST", APIOperation.transactionStatus.path),
                    "alice"
                ),
                ("another method", Self.proof(key, credential: credential, "GET", path), "alice"),
                (
                    "stale", Self.proof(key, credential: credential, "POST", path, claims: ["iat": 1_000_000]),
                    "alice"
                ),
                (
                    "a DPoP typ", Self.proof(key, credential: credential, "POST", path, header: ["typ": "dpop+jwt"]),
                    "alice"
                ),
                ("another key", Self.proof(stranger, credential: credential, "POST", path), "alice"),
                ("no device key", Self.proof(key, credential: carol.credentialID, "POST", path), "carol"),
                // The same name in another Unicode spelling is another user (docs/contract.md §4).
                (
                    "a look-alike user", Self.proof(accentKey, credential: accentCredential, "POST", path),
                    "e\u{301}"
                ),
                ("garbage", "not.a.jwt", "alice"),
            ]
            for (name, proof, user) in refused {
                let reply = try await Self.pending(api, app, user: user, proof: proof)
                #expect(reply.status == .unauthorized, "\(name): \(reply.status) \(reply.text)")
                #expect(reply["approvals"] == nil, "\(name)")
            }
            // A device key must be a P-256 public JWK.
            let started = try await api.post(
                APIOperation.outOfBandEnroll.path, ["application_id": .string(app.id), "user_id": "dave"],
                bearer: app.apiKey)
            let redeemed = try await OutOfBandTests.redeem(
                api, link: try #require(started["enrollment"]?["appLinkUri"]?.stringValue))
            let credentialJSON = try Device.make().create(
                try #require(redeemed["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            var secret = stranger.jwk.mapValues { JSONValue.string($0) }
            secret["d"] = "AAAA"
            var devices: [JSONValue] = [["kty": "RSA", "n": "AQAB", "e": "AQAB"], .object(secret), "a string"].map {
                ["name": "Phone", "key": $0]
            }
            devices.append(["name": "Phone", "push_token": "fcm-without-a-key"])
            for device in devices {
                let reply = try await OutOfBandTests.complete(
                    api, try #require(redeemed["transaction_id"]?.stringValue), credentialJSON,
                    extra: ["device": device])
                expectError(reply, .badRequest)
            }
            // Refused input stored nothing: the transaction still completes.
            let done = try await OutOfBandTests.complete(
                api, try #require(redeemed["transaction_id"]?.stringValue), credentialJSON)
            #expect(done["status"]?.stringValue == "succeeded", "\(done.text)")
        }
    }

    @Test("the event stream sends each approval once, pending ones first, then those made while it is open")
    func eventStream() async throws {
        try await TestServer.with(.live) { api in
            let app = try await api.createApplication(policy: "grant")
            let (_, key, credential) = try await Self.enroll(api, app, user: "alice")
            let first = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay 3 EUR"])
            let path = APIOperation.approvalEvents.path
            // Ten seconds: on a loaded machine the stream must still be open when the second
            // approval is made (it was 3 s, and a CI run once made the approval after the end).
            let query = "?application_id=\(app.id)&user_id=alice&max_seconds=10"
            let proof = Self.proof(key, credential: credential, "GET", path)
            // The stream on a connection of its own (URLSession); the backend's call on the test client's.
            let port = try #require(api.client.port)
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)\(query)")))
            request.setValue("UMFA-Device \(proof)", forHTTPHeaderField: "Authorization")
            async let streamed = URLSession.shared.data(for: request)
            try await Task.sleep(for: .seconds(2))
            let second = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Sign in?"])
            let (body, answer) = try await streamed
            let response = try #require(answer as? HTTPURLResponse)
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/event-stream") == true)
            let text = String(decoding: body, as: UTF8.self)
            let events = text.components(separatedBy: "\n\n").filter { $0.contains("event: approval") }
            #expect(events.count == 2, "\(text)")
            let event = try #require(events.first)
            #expect(event.contains("id: \(try #require(first["transactionId"]?.stringValue))"))
            #expect(events.last?.contains("id: \(try #require(second["transactionId"]?.stringValue))") == true)
            let data = try #require(event.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
            let approval = try JSONDecoder().decode(PendingApproval.self, from: Data(data.utf8))
            #expect(approval.message == "Pay 3 EUR")
            #expect(try #require(first["appLinkUri"]?.stringValue).hasSuffix("=" + approval.dispatchTokenResponse))
            // Without a proof: 401 before the query is judged.
            let refused = try await api.client.execute(uri: path, method: .get, headers: [:], body: nil)
            #expect(refused.status == .unauthorized)
        }
    }

    @Test("webhook_url: https or loopback http; the secret is shown once and rotates; each change is queued, signed")
    func webhooks() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let admin = TestServer.adminToken
            let path = APIOperation.updateApplication.path(["id": app.id])
            for bad in ["http://example.com/hook", "ftp://127.0.0.1/x", "not a url", "https://"] {
                expectError(
                    try await api.send(.patch, path, json: ["webhook_url": .string(bad)], bearer: admin), .badRequest)
            }
            expectError(
                try await api.send(.post, APIOperation.rotateWebhookSecret.path(["id": app.id]), bearer: admin),
                .conflict)
            // A receiver nobody listens on: deliveries stay in the outbox and are retried.
            let set = try await api.send(
                .patch, path, json: ["webhook_url": "http://127.0.0.1:9/umfa-hook"], bearer: admin)
            #expect(set.status == .ok && set["webhook_url"]?.stringValue == "http://127.0.0.1:9/umfa-hook")
            let secret = try #require(set["webhook_secret"]?.stringValue)
            #expect(secret.hasPrefix("umfa_whs_"))
            let again = try await api.send(.patch, path, json: ["name": "Renamed"], bearer: admin)
            #expect(again["webhook_secret"] == nil && again["webhook_url"] == set["webhook_url"])
            #expect(try await api.send(.get, path, bearer: admin)["webhook_secret"] == nil)
            // A new receiver gets a new secret: the old one must not sign for it.
            let moved = try await api.send(
                .patch, path, json: ["webhook_url": "http://127.0.0.1:9/other"], bearer: admin)
            let movedSecret = try #require(moved["webhook_secret"]?.stringValue)
            #expect(movedSecret != secret)
            let rotated = try await api.send(
                .post, APIOperation.rotateWebhookSecret.path(["id": app.id]), bearer: admin)
            let newSecret = try #require(rotated["webhook_secret"]?.stringValue)
            #expect(rotated.status == .ok && newSecret != secret && newSecret.hasPrefix("umfa_whs_"))

            let (phone, _, _) = try await Self.enroll(api, app, user: "alice")
            let approval = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay"])
            let (transaction, assertion) = try await OutOfBandTests.sign(
                api, approval, device: phone, decision: "deny")
            _ = try await OutOfBandTests.complete(api, transaction, assertion, extra: ["decision": "deny"])
            let store = try await SQLiteStore.open(
                path: api.directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
            let queued = try await store.pendingWebhooks(applicationID: try #require(UUID(uuidString: app.id)))
            let events = try queued.map { try JSONDecoder().decode(WebhookEvent.self, from: Data($0.body.utf8)) }
            #expect(
                events.map(\.type) == [
                    "transaction.created", "transaction.succeeded", "transaction.created", "transaction.denied",
                ])
            #expect(events.last?.transactionId == transaction && events.last?.userId == "alice")
            #expect(events.allSatisfy { $0.occurredAt.hasSuffix("Z") })
            // Expiry is a change too, found by the server without a request.
            let late = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "ttl_seconds": 60])
            api.clock.advance(by: 61)
            var expired: [WebhookEvent] = []
            // The dispatcher looks once a second; a loaded machine may take much longer.
            let deadline = ContinuousClock.now + .seconds(60)
            while expired.last?.type != "transaction.expired", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                expired = try await store.pendingWebhooks(applicationID: try #require(UUID(uuidString: app.id))).map {
                    try JSONDecoder().decode(WebhookEvent.self, from: Data($0.body.utf8))
                }
            }
            #expect(
                expired.last?.type == "transaction.expired"
                    && expired.last?.transactionId == late["transactionId"]?.stringValue)
            try await store.close()
            // Removing the URL removes the secret; a new URL gets a new one.
            let removed = try await api.send(.patch, path, json: ["webhook_url": ""], bearer: admin)
            #expect(removed["webhook_url"] == nil)
            let reset = try await api.send(
                .patch, path, json: ["webhook_url": "https://shop.example/hook"], bearer: admin)
            #expect(reset["webhook_secret"]?.stringValue?.hasPrefix("umfa_whs_") == true)
        }
    }

    @Test("an approval for a user with push tokens reaches every dispatcher once, without a dispatch token")
    func dispatchers() async throws {
        let recorder = RecordingDispatcher()
        var server = TestServer()
        server.adjust = { $0.approvalDispatchers = [recorder, FailingDispatcher(), recorder] }
        defer { server.remove() }
        try await server.run { api in
            let app = try await api.createApplication(policy: "grant")
            _ = try await Self.enroll(api, app, user: "alice")
            let phone = Device.make()
            _ = try await api.register(
                app, user: "bob", device: phone, enrollmentToken: try await api.enrollmentToken(app, user: "bob"))
            let asked = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay 7 EUR"])
            _ = try await OutOfBandTests.approval(api, app, ["user_id": "bob", "message": "No push token"])
            _ = try await OutOfBandTests.approval(api, app, ["message": "Anyone, by QR code"])
            let notices = recorder.notices.withLock { $0 }
            #expect(notices.count == 2, "one per recording dispatcher; a failing one in between changes nothing")
            let notice = try #require(notices.first)
            #expect(notice.userID == "alice" && notice.message == "Pay 7 EUR" && notice.pushTokens == ["fcm-token-1"])
            #expect(notice.transactionID == asked["transactionId"]?.stringValue)
            #expect(!"\(notice)".contains("umfa_dt_"), "no dispatch token in a push")
        }
    }
}

/// A push service that records what it is asked to send (APNs and FCM cannot run here).
final class RecordingDispatcher: ApprovalDispatcher {
    let notices = Mutex<[ApprovalNotice]>([])
    func dispatch(_ notice: ApprovalNotice) async throws { notices.withLock { $0.append(notice) } }
}

/// A push service that is down.
struct FailingDispatcher: ApprovalDispatcher {
    struct Down: Error {}
    func dispatch(_ notice: ApprovalNotice) async throws { throw Down() }
}
