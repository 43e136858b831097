import Crypto
import Foundation
import Testing
import UMFAAuthenticator
import UMFACBOR
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/contract.md §4: what a challenge was issued with is checked again when it is answered, and a
/// failed device-facing ceremony says only that it failed.
@Suite("Ceremonies: re-checked at verification")
struct CeremonyRecheckTests {
    @Test("open policy: the victim's first enrollment stops a registration an attacker started before it")
    func openPolicyRecheckedAtVerify() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let early = try await api.registrationOptions(app, user: "victim")
            #expect(early.status == .ok)
            _ = try await api.register(app, user: "victim", device: Device.make())

            let credential = try Device.make().create(
                try #require(early["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let late = try await api.call(
                .registrationVerify,
                RegistrationVerifyRequest(applicationID: app.id, userID: "victim", credential: credential))
            #expect(late.status == .forbidden)
            let listed = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "victim"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(listed["credentials"]?.arrayValue?.count == 1)
        }
    }

    @Test("an enrollment token survives a retried registration/options and grants exactly one credential")
    func enrollmentTokenSpentAtVerify() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let token = try await api.enrollmentToken(app, user: "alice")
            // The first response is lost; the client asks again with the same token.
            let lost = try await api.registrationOptions(app, user: "alice", enrollmentToken: token)
            let retried = try await api.registrationOptions(app, user: "alice", enrollmentToken: token)
            #expect(lost.status == .ok)
            #expect(retried.status == .ok)

            let device = Device.make()
            let credential = try device.create(
                try #require(retried["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let verified = try await api.call(
                .registrationVerify,
                RegistrationVerifyRequest(applicationID: app.id, userID: "alice", credential: credential))
            #expect(verified.status == .ok)

            // The token is spent now: neither the first challenge nor new options can use it.
            let second = try Device.make().create(
                try #require(lost["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let replay = try await api.call(
                .registrationVerify,
                RegistrationVerifyRequest(applicationID: app.id, userID: "alice", credential: second))
            #expect(replay.status == .unauthorized)
            #expect(
                try await api.registrationOptions(app, user: "alice", enrollmentToken: token).status == .unauthorized)
            let listed = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(listed["credentials"]?.arrayValue?.count == 1)
        }
    }

    @Test("§7.2 step 5: a credential of the user that the options did not list is refused")
    func allowCredentialsKeptWithTheChallenge() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let first = try await api.register(app, user: "alice", device: Device.make())
            let options = try await api.authenticationOptions(app, user: "alice")
            let request = try #require(options["publicKey"]).decoded(RequestOptionsJSON.self)
            #expect(request.allowCredentials?.map(\.id.base64URL) == [first.credentialID])

            // A second device is added after the options were given; it answers their challenge.
            let laterDevice = Device.make()
            _ = try await api.register(app, user: "alice", device: laterDevice, token: first.token)
            var unlisted = request
            unlisted.allowCredentials = []
            let assertion = try laterDevice.get(unlisted, userVerified: true)
            let reply = try await api.verifyAssertion(app, user: "alice", credential: assertion)
            #expect(reply.status == .unauthorized)
        }
    }

    @Test("two assertions with one counter value, verified at once: exactly one signs in")
    func signCountRace() async throws {
        try await TestServer.with(.live) { api in
            let app = try await api.createApplication(policy: "open")
            let store = InMemoryCredentialStore()
            let device = Device(
                origin: TestApplication.origin, authenticator: SoftwareAuthenticator(store: store))
            _ = try await api.register(app, user: "alice", device: device)
            for _ in 0..<5 {
                // A cloned authenticator: the same key and the same counter, twice.
                let snapshot = store.allCredentials()
                var assertions: [AuthenticationResponseJSON] = []
                for _ in 0..<2 {
                    for credential in snapshot { store.save(credential) }
                    assertions.append(try await api.assertion(app, user: "alice", device: device))
                }
                let first = assertions[0]
                let second = assertions[1]
                async let one = api.verifyAssertion(app, user: "alice", credential: first)
                async let two = api.verifyAssertion(app, user: "alice", credential: second)
                let statuses = try await [one.status, two.status]
                #expect(statuses.filter { $0 == .ok }.count == 1, "\(statuses)")
            }
        }
    }

    @Test("§7.1 step 20: a key of an algorithm the options did not offer is refused")
    func onlyOfferedAlgorithms() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            for (user, algorithm) in [("alice", COSEAlgorithm.es512), ("bob", .es256)] {
                let options = try await api.registrationOptions(app, user: user)
                let offered = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
                #expect(offered.pubKeyCredParams.contains { $0.alg == algorithm } == (algorithm == .es256))
                let credential = NoneAttestation.registration(
                    for: offered, origin: TestApplication.origin, algorithm: algorithm)
                let reply = try await api.call(
                    .registrationVerify,
                    RegistrationVerifyRequest(applicationID: app.id, userID: user, credential: credential))
                // ES512 is supported by the verifier but was not offered: refused. ES256 passes.
                #expect(reply.status == (algorithm == .es256 ? .ok : .unauthorized), "\(algorithm)")
            }
        }
    }
}

/// docs/contract.md §4: one answer for every failed device-facing ceremony; pseudo lists look real.
@Suite("Ceremonies: failures say nothing about users")
struct UniformFailureTests {
    @Test("an unknown credential, a wrong signature and a wrong challenge get one and the same 401")
    func oneMessage() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            _ = try await api.register(app, user: "alice", device: device)

            var unknown = try await api.assertion(app, user: "alice", device: device)
            unknown.rawId = Base64URLBytes(Array(repeating: 7, count: 32))
            unknown.id = unknown.rawId.base64URL

            var badSignature = try await api.assertion(app, user: "alice", device: device)
            var signature = badSignature.response.signature.bytes
            signature[signature.count - 1] ^= 1
            badSignature.response.signature = Base64URLBytes(signature)

            let spent = try await api.assertion(app, user: "alice", device: device)
            #expect(try await api.verifyAssertion(app, user: "alice", credential: spent).status == .ok)

            var messages: [String] = []
            for assertion in [unknown, badSignature, spent] {
                let reply = try await api.verifyAssertion(app, user: "alice", credential: assertion)
                #expect(reply.status == .unauthorized)
                messages.append(reply["message"]?.stringValue ?? "")
            }
            #expect(Set(messages) == ["Authentication failed"], "\(messages)")
        }
    }

    @Test("a pseudo list has as many ids as a real user's, of the same lengths and transports")
    func pseudoListsLookReal() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let first = try await api.register(app, user: "alice", device: Device.make())
            _ = try await api.register(app, user: "alice", device: Device.make(), token: first.token)

            let known = try await api.authenticationOptions(app, user: "alice")
            let ghost = try await api.authenticationOptions(app, user: "ghost")
            #expect(EnumerationTests.allowedIDs(known).count == 2)
            #expect(EnumerationTests.shape(ghost) == EnumerationTests.shape(known))
            #expect(Set(EnumerationTests.allowedIDs(ghost)).isDisjoint(with: EnumerationTests.allowedIDs(known)))
            let again = try await api.authenticationOptions(app, user: "ghost")
            #expect(EnumerationTests.allowedIDs(again) == EnumerationTests.allowedIDs(ghost))
        }
    }
}

/// A `none`-attestation registration built by hand, for keys the software authenticator does
/// not make (nothing signs a `none` registration, so any key can be presented).
enum NoneAttestation {
    static func registration(for options: CreationOptionsJSON, origin: String, algorithm: COSEAlgorithm)
        -> RegistrationResponseJSON
    {
        let key: CBORValue
        if algorithm == .es512 {
            let raw = Array(P521.Signing.PrivateKey().publicKey.rawRepresentation)
            key = .map(
                CBORMap([
                    1: 2, 3: CBORValue(Int64(algorithm.rawValue)), -1: 3, -2: .byteString(Array(raw.prefix(66))),
                    -3: .byteString(Array(raw.suffix(66))),
                ]))
        } else {
            let raw = Array(P256.Signing.PrivateKey().publicKey.rawRepresentation)
            key = .map(
                CBORMap([
                    1: 2, 3: CBORValue(Int64(algorithm.rawValue)), -1: 1, -2: .byteString(Array(raw.prefix(32))),
                    -3: .byteString(Array(raw.suffix(32))),
                ]))
        }
        let credentialID = (0..<32).map { _ in UInt8.random(in: 0...255) }
        var authData = Array(SHA256.hash(data: Array((options.rp.id ?? "").utf8)))
        authData += [0x45, 0, 0, 0, 0] + Array(repeating: 0, count: 16)
        authData += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
        authData += CBOREncoder.encode(key)
        let attestation = CBOREncoder.encode(
            .map(CBORMap(["fmt": "none", "attStmt": .map(CBORMap()), "authData": .byteString(authData)])))
        let clientData = Array(
            "{\"type\":\"webauthn.create\",\"challenge\":\"\(options.challenge.base64URL)\",\"origin\":\"\(origin)\"}"
                .utf8)
        return RegistrationResponseJSON(
            rawId: Base64URLBytes(credentialID),
            response: AttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientData), attestationObject: Base64URLBytes(attestation)))
    }
}
