import Crypto
import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/ciba.md: the passkey signs an approval's decision and number, so what a relay changes on
/// the way fails the transaction; the evidence is kept; authorization details are shown and signed.
@Suite("Signed approval decisions")
struct SignedDecisionTests {
    /// An application with one enrolled phone for alice.
    static func setUp(_ api: API) async throws -> (TestApplication, Device) {
        let app = try await api.createApplication(policy: "grant")
        let phone = Device.make()
        _ = try await api.register(
            app, user: "alice", device: phone, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
        return (app, phone)
    }

    static func auditEvents(_ api: API, _ app: TestApplication) async throws -> [JSONValue] {
        let audit = try await api.send(
            .get, APIOperation.listApplicationAuditEvents.path + "?application_id=\(app.id)&limit=1000",
            bearer: app.apiKey)
        return (audit["events"]?.arrayValue ?? []).filter { $0["action"]?.stringValue?.hasPrefix("approval.") == true }
    }

    @Test("a relay that flips deny to approve, or changes the number, fails the transaction: never approved")
    func tamperedDecisions() async throws {
        try await TestServer.with { api in
            let (app, phone) = try await Self.setUp(api)

            // The person denies; the relay sends approve.
            let flipped = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay 900 EUR"])
            let (flippedID, denial) = try await OutOfBandTests.sign(api, flipped, device: phone, decision: "deny")
            expectError(
                try await OutOfBandTests.complete(api, flippedID, denial, extra: ["decision": "approve"]), .forbidden)
            let flippedStatus = try await OutOfBandTests.status(api, try #require(flipped["statusToken"]?.stringValue))
            #expect(flippedStatus["status"] == "failed" && flippedStatus["token"] == nil, "\(flippedStatus.text)")
            // What the passkey really signed is kept: a denial.
            #expect(flippedStatus["evidence"]?["decision"] == "deny", "\(flippedStatus.text)")
            // The honest answer cannot follow: the transaction is over.
            expectError(
                try await OutOfBandTests.complete(api, flippedID, denial, extra: ["decision": "deny"]), .conflict)

            // The person types the right number; the relay changes it (and the other way round).
            let matching = try await OutOfBandTests.approval(
                api, app, ["user_id": "alice", "message": "Sign in", "number_matching": true])
            let shown = try #require(matching["matchingNumber"]?.stringValue)
            let other = shown == "42" ? "43" : "42"
            let (matchingID, typed) = try await OutOfBandTests.sign(api, matching, device: phone, number: other)
            expectError(
                try await OutOfBandTests.complete(
                    api, matchingID, typed, extra: ["matching_number": .string(shown)]), .forbidden)
            let matchingStatus = try await OutOfBandTests.status(
                api, try #require(matching["statusToken"]?.stringValue))
            #expect(matchingStatus["status"] == "failed" && matchingStatus["token"] == nil)
            #expect(matchingStatus["evidence"]?["matchingNumber"]?.stringValue == other)

            // An app from before signed decisions signs the transaction's challenge itself: told to
            // update, and the transaction fails.
            let old = try await OutOfBandTests.approval(api, app, ["user_id": "alice"])
            let redeemed = try await OutOfBandTests.redeem(api, link: try #require(old["appLinkUri"]?.stringValue))
            let options = try #require(redeemed["publicKey"]).decoded(RequestOptionsJSON.self)
            let unsigned = try phone.get(options, userVerified: true)
            let refused = try await OutOfBandTests.complete(
                api, try #require(redeemed["transaction_id"]?.stringValue), unsigned)
            expectError(refused, .badRequest)
            #expect(refused.text.contains("update the app"), "\(refused.text)")
            #expect(
                try await OutOfBandTests.status(api, try #require(old["statusToken"]?.stringValue))["status"]
                    == "failed")

            let events = try await Self.auditEvents(api, app)
            #expect(
                events.map { $0["action"]?.stringValue } == ["approval.failed", "approval.failed", "approval.failed"])
            #expect(
                events.map { $0["details"]?["reason"]?.stringValue }
                    == ["decision_mismatch", "decision_mismatch", "unsigned_decision"])
            #expect(events.first?["details"]?["signed_decision"] == "deny")
        }
    }

    @Test("the evidence of an approval is the assertion that signed the decision's challenge")
    func evidence() async throws {
        try await TestServer.with { api in
            let (app, phone) = try await Self.setUp(api)
            let asked = try await OutOfBandTests.approval(api, app, ["user_id": "alice", "message": "Pay 5 EUR"])
            let redeemed = try await OutOfBandTests.redeem(api, link: try #require(asked["appLinkUri"]?.stringValue))
            var options = try #require(redeemed["publicKey"]).decoded(RequestOptionsJSON.self)
            let transactionChallenge = options.challenge.bytes
            let signedChallenge = OutOfBandTests.decisionChallenge(options.challenge.bytes, "approve", nil)
            options.challenge = Base64URLBytes(signedChallenge)
            let assertion = try phone.get(options, userVerified: true)
            let id = try #require(redeemed["transaction_id"]?.stringValue)
            #expect(try await OutOfBandTests.complete(api, id, assertion)["status"] == "succeeded")
            let status = try await OutOfBandTests.status(api, try #require(asked["statusToken"]?.stringValue))
            let evidence = try #require(status["evidence"])
            #expect(evidence["decision"] == "approve" && evidence["matchingNumber"] == nil, "\(status.text)")
            #expect(evidence["challenge"]?.stringValue == Base64URL.encode(signedChallenge))
            // What the signed challenge derives from, so a backend can recompute both.
            #expect(evidence["transactionChallenge"]?.stringValue == Base64URL.encode(transactionChallenge))
            #expect(evidence["approvalNonce"] == redeemed["approval_nonce"])
            #expect(evidence["credentialId"]?.stringValue == Base64URL.encode(assertion.rawId.bytes))
            #expect(
                evidence["clientDataJSON"]?.stringValue == Base64URL.encode(assertion.response.clientDataJSON.bytes))
            #expect(
                evidence["authenticatorData"]?.stringValue
                    == Base64URL.encode(assertion.response.authenticatorData.bytes))
            #expect(evidence["signature"]?.stringValue == Base64URL.encode(assertion.response.signature.bytes))
            let approved = try await Self.auditEvents(api, app).last
            #expect(approved?["action"] == "approval.approved")
            #expect(approved?["details"]?["signed_challenge"]?.stringValue == Base64URL.encode(signedChallenge))
        }
    }

    @Test("authorization details: declared types only, shown in canonical text, signed, returned to the device")
    func authorizationDetails() async throws {
        try await TestServer.with { api in
            let (app, _) = try await Self.setUp(api)
            let payment: JSONValue = [
                [
                    "type": "payment_initiation", "creditorName": "Shop\u{202E}evil",
                    "instructedAmount": ["currency": "EUR", "amount": "120.00"], "locations": ["https://bank.example"],
                ]
            ]
            // Not declared yet: refused, and nothing started.
            let refused = try await api.post(
                APIOperation.createApproval.path,
                [
                    "application_id": .string(app.id), "user_id": "alice", "authorization_details": payment,
                ], bearer: app.apiKey)
            expectError(refused, .badRequest)
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["authorization_details_types": ["payment_initiation"]], bearer: TestServer.adminToken)
            #expect(patched.status == .ok, "\(patched.text)")
            for bad: JSONValue in [
                [["type": "account_information"]], [["no_type": "x"]], ["type"], [],
                [["type": "payment_initiation", "actions": [1]]],
            ] {
                expectError(
                    try await api.post(
                        APIOperation.createApproval.path,
                        ["application_id": .string(app.id), "user_id": "alice", "authorization_details": bad],
                        bearer: app.apiKey), .badRequest)
            }
            let asked = try await OutOfBandTests.approval(
                api, app, ["user_id": "alice", "message": "Pay Shop", "authorization_details": payment])
            let redeemed = try await OutOfBandTests.redeem(api, link: try #require(asked["appLinkUri"]?.stringValue))
            #expect(redeemed["authorization_details"] == payment)
            // The text shown (and covered by the challenge): the message, then each leaf in byte
            // order of its path; the right-to-left override written as an escape.
            #expect(
                redeemed["message"]?.stringValue == """
                    Pay Shop

                    type: "payment_initiation"
                    creditorName: "Shop\\u{202E}evil"
                    instructedAmount.amount: "120.00"
                    instructedAmount.currency: "EUR"
                    locations[0]: "https://bank.example"
                    """)
        }
    }
}
