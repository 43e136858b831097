import Crypto
import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/contract.md §7: enrollment and approval started by the backend and finished on a phone, through
/// the app link's single-use dispatch token; the backend learns the outcome by its status token.
@Suite("Out-of-band enrollment and approval")
struct OutOfBandTests {
    /// The app link's payload.
    static func payload(_ link: String) throws -> [String: JSONValue] {
        let query = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "dispatchTokenResponse" })
        let bytes = try #require(query.value.flatMap(Base64URL.decode))
        return try #require(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)).objectValue)
    }

    static func redeem(_ api: API, link: String) async throws -> Reply {
        let token = try #require(try payload(link)["token"]?.stringValue)
        return try await api.post(APIOperation.dispatchRedeem.path, ["token": .string(token)])
    }

    static func status(_ api: API, _ statusToken: String) async throws -> Reply {
        try await api.post(APIOperation.transactionStatus.path, ["statusToken": .string(statusToken)])
    }

    static func complete(
        _ api: API, _ transaction: String, _ credential: some Encodable, extra: [String: JSONValue] = [:]
    )
        async throws -> Reply
    {
        var body: [String: JSONValue] = [
            "transaction_id": .string(transaction), "credential": try .encoding(credential),
        ]
        body.merge(extra) { $1 }
        return try await api.post(APIOperation.dispatchComplete.path, .object(body))
    }

    @Test("the backend enrolls a user; the phone redeems the link once and registers; status gives a valid token")
    func enrollment() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let started = try await api.post(
                APIOperation.outOfBandEnroll.path,
                ["application_id": .string(app.id), "user_id": "alice", "display_name": "Alice"], bearer: app.apiKey)
            #expect(started.status == .ok, "\(started.text)")
            #expect(started["status"]?.stringValue == "new" && started["userId"]?.stringValue == "alice")
            let enrollment = try #require(started["enrollment"])
            let link = try #require(enrollment["appLinkUri"]?.stringValue)
            #expect(link.hasPrefix("http://127.0.0.1:0/open?dispatchTokenResponse="))
            let payload = try Self.payload(link)
            #expect(payload["version"] == .number(1) && payload["operation"]?.stringValue == "registration")
            #expect(payload["application_id"]?.stringValue == app.id)
            #expect(payload["token"]?.stringValue?.hasPrefix("umfa_dt_") == true)
            let qr = try #require(enrollment["qrCode"])
            #expect(qr["type"]?.stringValue == "image/png")
            #expect(qr["dataUri"]?.stringValue?.hasPrefix("data:image/png;base64,iVBORw0KGgo") == true)
            let statusToken = try #require(enrollment["statusToken"]?.stringValue)
            #expect(try await Self.status(api, statusToken)["status"]?.stringValue == "pending")

            // The phone: redeem once, register, complete.
            let redeemed = try await Self.redeem(api, link: link)
            #expect(redeemed.status == .ok, "\(redeemed.text)")
            #expect(redeemed["operation"]?.stringValue == "registration" && redeemed["user_id"]?.stringValue == "alice")
            expectError(try await Self.redeem(api, link: link), .unauthorized)
            let transaction = try #require(redeemed["transaction_id"]?.stringValue)
            let phone = Device.make()
            let credential = try phone.create(
                try #require(redeemed["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let done = try await Self.complete(
                api, transaction, credential, extra: ["device": ["name": "Alice's phone"]])
            #expect(done.status == .ok && done["status"]?.stringValue == "succeeded", "\(done.text)")
            expectError(try await Self.complete(api, transaction, credential), .conflict)

            let status = try await Self.status(api, statusToken)
            #expect(status["status"]?.stringValue == "succeeded" && status["userId"]?.stringValue == "alice")
            let token = try #require(status["token"]?.stringValue)
            #expect(try await api.validate(app, user: "alice", token: .string(token)).status == .ok)
            let stored = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(stored["credentials"]?.arrayValue?.first?["device_name"]?.stringValue == "Alice's phone")
            // The passkey signs in as usual.
            #expect(try await api.authenticate(app, user: "alice", device: phone).userID == "alice")
            // Refusals: another application's key, an unknown status token.
            let other = try await api.createApplication(policy: "grant")
            expectError(
                try await api.post(
                    APIOperation.outOfBandEnroll.path, ["application_id": .string(app.id), "user_id": "bob"],
                    bearer: other.apiKey), .unauthorized)
            expectError(try await Self.status(api, "umfa_st_made-up"), .unauthorized)
        }
    }

    static func approval(_ api: API, _ app: TestApplication, _ body: [String: JSONValue]) async throws -> Reply {
        var body = body
        body["application_id"] = .string(app.id)
        let reply = try await api.post(APIOperation.createApproval.path, .object(body), bearer: app.apiKey)
        #expect(reply.status == .created, "\(reply.text)")
        return reply
    }

    /// Redeems an approval, checks that its challenge binds the message, and signs the
    /// decision's challenge (docs/ciba.md): `decision` and `number` as the phone will send them.
    static func sign(
        _ api: API, _ started: Reply, device: Device, decision: String = "approve", number: String? = nil
    ) async throws -> (String, AuthenticationResponseJSON) {
        let redeemed = try await redeem(api, link: try #require(started["appLinkUri"]?.stringValue))
        #expect(redeemed.status == .ok, "\(redeemed.text)")
        let transaction = try #require(redeemed["transaction_id"]?.stringValue)
        var options = try #require(redeemed["publicKey"]).decoded(RequestOptionsJSON.self)
        let nonce = try #require(redeemed["approval_nonce"]?.stringValue.flatMap(Base64URL.decode))
        var input = Array("UMFA approval v1".utf8) + [0] + Array(transaction.utf8) + [0]
        input += Array((redeemed["message"]?.stringValue ?? "").utf8) + [0] + nonce
        #expect(options.challenge.bytes == Array(SHA256.hash(data: input)), "the challenge binds what is shown")
        options.challenge = Base64URLBytes(decisionChallenge(options.challenge.bytes, decision, number))
        return (transaction, try device.get(options, userVerified: true))
    }

    /// `SHA-256("UMFA approval decision v1" ‖ 0 ‖ challenge ‖ 0 ‖ decision ‖ 0 ‖ number)`, written
    /// out here as docs/ciba.md gives it.
    static func decisionChallenge(_ challenge: [UInt8], _ decision: String, _ number: String?) -> [UInt8] {
        let input =
            Array("UMFA approval decision v1".utf8) + [0] + challenge + [0] + Array(decision.utf8) + [0]
            + Array((number ?? "").utf8)
        return Array(SHA256.hash(data: input))
    }

    @Test("approvals: message bound into the challenge, number matching, deny, expiry, usernameless, tampering")
    func approvals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let phone = Device.make()
            _ = try await api.register(
                app, user: "alice", device: phone, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))

            // The right number: succeeded, with a login token.
            let paying = try await Self.approval(
                api, app, ["user_id": "alice", "message": "Pay 120.00 EUR to Shop", "number_matching": true])
            let number = try #require(paying["matchingNumber"]?.stringValue)
            let (transaction, assertion) = try await Self.sign(api, paying, device: phone, number: number)
            let done = try await Self.complete(api, transaction, assertion, extra: ["matching_number": .string(number)])
            #expect(done["status"]?.stringValue == "succeeded", "\(done.text)")
            let status = try await Self.status(api, try #require(paying["statusToken"]?.stringValue))
            #expect(status["status"]?.stringValue == "succeeded")
            #expect(try await api.validate(app, user: "alice", token: try #require(status["token"])).status == .ok)

            // A wrong number fails the transaction for good.
            let wrong = try await Self.approval(api, app, ["user_id": "alice", "number_matching": true])
            let guess = try #require(wrong["matchingNumber"]?.stringValue) == "10" ? "11" : "10"
            let (wrongTransaction, wrongAssertion) = try await Self.sign(api, wrong, device: phone, number: guess)
            expectError(
                try await Self.complete(
                    api, wrongTransaction, wrongAssertion, extra: ["matching_number": .string(guess)]),
                .forbidden)
            #expect(try await Self.status(api, try #require(wrong["statusToken"]?.stringValue))["status"] == "failed")

            // Deny.
            let denied = try await Self.approval(api, app, ["user_id": "alice", "message": "Sign in from Lyon?"])
            let (deniedTransaction, deniedAssertion) = try await Self.sign(
                api, denied, device: phone, decision: "deny")
            let answer = try await Self.complete(api, deniedTransaction, deniedAssertion, extra: ["decision": "deny"])
            #expect(answer["status"]?.stringValue == "denied", "\(answer.text)")
            let deniedStatus = try await Self.status(api, try #require(denied["statusToken"]?.stringValue))
            #expect(deniedStatus["status"]?.stringValue == "denied" && deniedStatus["token"] == nil)

            // A response to another challenge (a tampered message on the phone) is refused.
            let honest = try await Self.approval(api, app, ["user_id": "alice", "message": "Pay 5 EUR"])
            let (honestTransaction, _) = try await Self.sign(api, honest, device: phone)
            let elsewhere = try await api.assertion(app, user: "alice", device: phone)
            expectError(try await Self.complete(api, honestTransaction, elsewhere), .unauthorized)

            // Usernameless, by QR code: whoever approves is learned.
            let anyone = try await Self.approval(api, app, ["message": "Sign in on the TV"])
            let (anyTransaction, anyAssertion) = try await Self.sign(api, anyone, device: phone)
            #expect(try await Self.complete(api, anyTransaction, anyAssertion)["user_id"]?.stringValue == "alice")
            #expect(try await Self.status(api, try #require(anyone["statusToken"]?.stringValue))["userId"] == "alice")

            // Expiry: the link no longer redeems and the status says so.
            let late = try await Self.approval(api, app, ["user_id": "alice", "ttl_seconds": 60])
            api.clock.advance(by: 61)
            expectError(try await Self.redeem(api, link: try #require(late["appLinkUri"]?.stringValue)), .unauthorized)
            #expect(try await Self.status(api, try #require(late["statusToken"]?.stringValue))["status"] == "expired")

            // Bad requests.
            for bad: JSONValue in [
                ["application_id": .string(app.id), "message": .string(String(repeating: "x", count: 501))],
                ["application_id": .string(app.id), "ttl_seconds": 10],
            ] {
                expectError(try await api.post(APIOperation.createApproval.path, bad, bearer: app.apiKey), .badRequest)
            }
            expectError(
                try await api.post(
                    APIOperation.createApproval.path, ["application_id": .string(app.id), "user_id": "nobody"],
                    bearer: app.apiKey), .notFound)

            let audit = try await api.send(
                .get, APIOperation.listApplicationAuditEvents.path + "?application_id=\(app.id)&limit=1000",
                bearer: app.apiKey)
            let actions = (audit["events"]?.arrayValue ?? []).compactMap { $0["action"]?.stringValue }
            #expect(
                actions.filter { $0.hasPrefix("approval.") } == [
                    "approval.approved", "approval.failed", "approval.denied", "approval.approved",
                ])
        }
    }

    @Test("an out-of-band challenge is answered only at dispatch/complete, never at the ordinary verify routes")
    func challengesStayOutOfBand() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let started = try await api.post(
                APIOperation.outOfBandEnroll.path, ["application_id": .string(app.id), "user_id": "alice"],
                bearer: app.apiKey)
            let redeemed = try await Self.redeem(
                api, link: try #require(started["enrollment"]?["appLinkUri"]?.stringValue))
            let phone = Device.make()
            let credential = try phone.create(
                try #require(redeemed["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let elsewhere = try await api.post(
                APIOperation.registrationVerify.path,
                ["application_id": .string(app.id), "user_id": "alice", "credential": try .encoding(credential)])
            expectError(elsewhere, .unauthorized)
            let transaction = try #require(redeemed["transaction_id"]?.stringValue)
            #expect(try await Self.complete(api, transaction, credential)["status"] == "succeeded")

            let asked = try await Self.approval(api, app, ["user_id": "alice", "message": "Pay 1 EUR"])
            let (approval, assertion) = try await Self.sign(api, asked, device: phone)
            let signIn = try await api.post(
                APIOperation.authenticationVerify.path,
                ["application_id": .string(app.id), "user_id": "alice", "credential": try .encoding(assertion)])
            expectError(signIn, .unauthorized)
            #expect(try await Self.status(api, try #require(asked["statusToken"]?.stringValue))["status"] == "pending")
            #expect(try await Self.complete(api, approval, assertion)["status"] == "succeeded")
        }
    }
}
