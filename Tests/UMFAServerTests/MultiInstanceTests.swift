import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Two instances on one PostgreSQL database behave as one server (the PostgreSQL and many
/// instances issue).
@Suite("Multi-instance on PostgreSQL")
struct MultiInstanceTests {
    @Test("a ceremony started on one instance completes on the other, both ways")
    func ceremonyAcrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let grant = try await b.enrollmentToken(app, user: "alice")
            let device = Device.make()

            let options = try await a.registrationOptions(app, user: "alice", enrollmentToken: grant)
            #expect(options.status == .ok, "\(options.text)")
            let created = try device.create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let registered = try CeremonyResult(
                try await b.post(
                    APIOperation.registrationVerify.path,
                    .object([
                        "application_id": .string(app.id), "user_id": "alice",
                        "credential": try .encoding(created),
                    ])))
            #expect(registered.userID == "alice")

            let assertionFromB = try await b.assertion(app, user: "alice", device: device)
            let signedInOnA = try CeremonyResult(
                try await a.verifyAssertion(app, user: "alice", credential: assertionFromB))
            #expect(signedInOnA.credentialID == registered.credentialID)
            let assertionFromA = try await a.assertion(app, user: nil, device: device)
            let signedInOnB = try CeremonyResult(
                try await b.verifyAssertion(app, user: nil, credential: assertionFromA))
            #expect(signedInOnB.userID == "alice")

            for api in [a, b] {
                let list = try await api.send(
                    .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                    bearer: app.apiKey)
                #expect(list["credentials"]?.arrayValue?.count == 1)
                #expect(
                    (list["credentials"]?.arrayValue?.first?["sign_count"]?.intValue ?? 0) >= 2,
                    "sign-ins on either instance advance the one stored counter")
            }
        }
    }

    @Test("tokens issued by one instance validate on the other; the JWKS are the same")
    func tokensAcrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let device = Device.make()
            let registered = try await a.register(
                app, user: "bob", device: device, enrollmentToken: try await a.enrollmentToken(app, user: "bob"))
            let signedInOnB = try await b.authenticate(app, user: "bob", device: device)

            for (token, issuer) in [(registered.token, "A"), (signedInOnB.token, "B")] {
                for (api, validator) in [(a, "A"), (b, "B")] {
                    let reply = try await api.validate(app, user: "bob", token: .string(token))
                    #expect(reply.status == .ok, "token from \(issuer) on \(validator): \(reply.text)")
                }
            }
            let wrongUser = try await b.validate(app, user: "mallory", token: .string(registered.token))
            #expect(wrongUser.status == .unauthorized)

            let kidA = try CompactJWT(registered.token).header["kid"]?.stringValue
            let kidB = try CompactJWT(signedInOnB.token).header["kid"]?.stringValue
            let jwksA = try await a.send(.get, APIOperation.jwks.path)
            let jwksB = try await b.send(.get, APIOperation.jwks.path)
            let kids = Set(jwksB["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? [])
            #expect(kids.contains(kidA ?? "none") && kids.contains(kidB ?? "none"))
            #expect(jwksA.json == jwksB.json)
        }
    }

    @Test("20 concurrent verifies of one assertion across both instances: exactly one 200")
    func assertionConsumedOnce() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            _ = try await a.register(app, user: "carol", device: device)
            for round in 0..<3 {
                let assertion = try await (round.isMultiple(of: 2) ? a : b).assertion(
                    app, user: "carol", device: device)
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for index in 0..<20 {
                        let api = index.isMultiple(of: 2) ? a : b
                        group.addTask {
                            try await api.verifyAssertion(app, user: "carol", credential: assertion).status
                        }
                    }
                    return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == .ok }.count == 1, "round \(round): \(statuses)")
                #expect(statuses.filter { $0 == .unauthorized }.count == 19, "round \(round): \(statuses)")
            }
        }
    }

    @Test("an assertion refused on one instance spends its challenge: the genuine one is then refused on the other")
    func refusalSpendsChallenge() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            _ = try await a.register(app, user: "alice", device: device)
            let genuine = try await a.assertion(app, user: "alice", device: device)
            var forged = genuine
            var signature = forged.response.signature.bytes
            signature[signature.count / 2] ^= 0x01
            forged.response.signature = Base64URLBytes(signature)
            let refused = try await a.verifyAssertion(app, user: "alice", credential: forged)
            #expect(refused.status == .unauthorized, "\(refused.text)")
            let late = try await b.verifyAssertion(app, user: "alice", credential: genuine)
            #expect(late.status == .unauthorized, "the challenge was spent by the refusal: \(late.text)")
            // A fresh challenge signs in.
            #expect(try await b.authenticate(app, user: "alice", device: device).userID == "alice")
        }
    }

    @Test(
        "a sign-in on PostgreSQL: options one statement, for a user with passkeys and one without alike; verification two"
    )
    func signInStatements() async throws {
        try await InstancePair.with(live: true) { a, _ in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            _ = try await a.register(app, user: "alice", device: device)
            var assertion: AuthenticationResponseJSON?
            let known = try await TokenRequestStatementTests.statements(a) {
                let reply = try await a.authenticationOptions(app, user: "alice")
                assertion = try device.get(
                    try #require(reply["publicKey"]).decoded(RequestOptionsJSON.self), userVerified: true)
                return reply
            }
            let unknown = try await TokenRequestStatementTests.statements(a) {
                try await a.authenticationOptions(app, user: "nobody")
            }
            #expect(known.reply.status == .ok && unknown.reply.status == .ok)
            // The server's own loops (outboxes, expiry) run meanwhile, and the signing keys' cache
            // refills when its time is up (on a slow machine, during a sign-in's token): their
            // statements are not the sign-in's.
            let loops = [
                "UPDATE webhook_outbox", "UPDATE logout_outbox", "UPDATE mail_outbox", "UPDATE oob_transactions",
                "SELECT signing_keys",
            ]
            let ran = { (ran: [String: Double]) in ran.filter { !loops.contains($0.key) } }
            #expect(ran(known.ran) == ["WITH INSERT challenges": 1], "\(known.ran)")
            #expect(ran(unknown.ran) == ran(known.ran), "the statements do not tell the users apart: \(unknown.ran)")
            let verified = try await TokenRequestStatementTests.statements(a) {
                try await a.verifyAssertion(app, user: "alice", credential: try #require(assertion))
            }
            #expect(verified.reply.status == .ok, "\(verified.reply.text)")
            #expect(
                ran(verified.ran) == [
                    "SELECT applications": 1, "WITH DELETE challenges + UPDATE credentials + INSERT audit_events": 1,
                ], "\(verified.ran)")
        }
    }

    @Test("a credential deleted through one instance is refused by the other at once")
    func deletionTakesEffectEverywhere() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "open")
            let device = Device.make()
            let registered = try await a.register(app, user: "dave", device: device)
            _ = try await a.authenticate(app, user: "dave", device: device)
            let pending = try await a.assertion(app, user: "dave", device: device)
            let pendingValidation = try await a.assertion(app, user: "dave", device: device)

            let removed = try await b.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": "dave", "credential_id": registered.credentialID])
                    + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(removed.status == .ok, "\(removed.text)")
            #expect(removed["removed"]?.boolValue == true)

            let refused = try await a.verifyAssertion(app, user: "dave", credential: pending)
            expectError(refused, .unauthorized)
            let validation = try await a.validate(
                app, user: "dave", token: try .encoding(pendingValidation), type: "credential")
            expectError(validation, .unauthorized)
            let list = try await a.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "dave"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(list["credentials"]?.arrayValue?.isEmpty == true)
            let again = try await a.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": "dave", "credential_id": registered.credentialID])
                    + "?application_id=\(app.id)",
                bearer: app.apiKey)
            expectError(again, .notFound)
        }
    }

    @Test("settings changed and API keys added through one instance apply on the other at once")
    func administrationAcrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "open")
            _ = try await a.register(app, user: "erin", device: Device.make())

            let patched = try await b.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: .object(["enrollment_policy": "grant"]),
                bearer: TestServer.adminToken)
            #expect(patched.status == .ok, "\(patched.text)")
            let refused = try await a.registrationOptions(app, user: "frank")
            #expect(refused.status == .forbidden, "the grant policy set on B applies on A: \(refused.text)")

            let newKey = try await b.post(
                APIOperation.createAPIKey.path(["id": app.id]), .object([:]), bearer: TestServer.adminToken)
            let key = try #require(newKey["api_key"]?.stringValue)
            let token = try await a.send(
                .post, APIOperation.createEnrollmentToken.path,
                json: .object(["application_id": .string(app.id), "user_id": "frank"]), bearer: key)
            #expect(token.status == .created, "\(token.text)")
        }
    }
}
