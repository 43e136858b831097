import Foundation
import Testing
import UMFAAuthenticator
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

@testable import UMFAServer

/// ``RegistrationService`` and ``AuthenticationService`` built from their ports alone (a SQLite
/// file, the ceremonies' collaborators, the login tokens), driven by a software authenticator
/// behind the browser emulation: WebAuthn L3 §7.1 and §7.2 as the server runs them, without a
/// server (docs/contract.md §2, §4).
@Suite("Device ceremonies from their ports: register, sign in, replays and other RP IDs refused")
struct DeviceCeremoniesFeatureTests {
    /// Registers a passkey of `device` for `user` of `application` (the tests' one when `nil`)
    /// under the `grant` policy, with an enrollment token as the backend would ask for.
    static func register(
        _ user: String, device: Device, _ ports: FeaturePorts, in application: ApplicationRecord? = nil
    ) async throws -> CeremonyResponse {
        let application = application ?? ports.application
        let grant = try await EnrollmentTokenService(apiKeys: ports.apiKeys, store: ports.store, now: ports.now)
            .issue(applicationID: application.id, userID: user, caller: ports.caller)
        let options = try await ports.registration.options(
            RegistrationOptionsRequest(
                applicationID: application.id.uuidString, userID: user, enrollmentToken: grant.enrollmentToken),
            caller: ports.caller)
        let credential = try device.create(options.publicKey, userVerified: true)
        return try await ports.registration.verify(
            RegistrationVerifyRequest(applicationID: application.id.uuidString, userID: user, credential: credential),
            caller: ports.caller)
    }

    /// The assertion `device` makes for fresh options of `user`, not yet verified.
    static func assertion(_ user: String?, device: Device, _ ports: FeaturePorts) async throws
        -> AuthenticationResponseJSON
    {
        let options = try await ports.authentication.options(
            AuthenticationOptionsRequest(applicationID: ports.application.id.uuidString, userID: user),
            caller: ports.caller)
        return try device.get(options.publicKey, userVerified: true)
    }

    static func verify(_ assertion: AuthenticationResponseJSON, user: String?, _ ports: FeaturePorts) async throws
        -> CeremonyResponse
    {
        try await ports.authentication.verify(
            AuthenticationVerifyRequest(
                applicationID: ports.application.id.uuidString, userID: user, credential: assertion),
            caller: ports.caller)
    }

    @Test("registration stores the passkey for the user and answers a login token naming it")
    func registers() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let registered = try await Self.register("alice", device: Device.make(), ports)
            #expect(registered.userID == "alice")
            let id = try #require(Base64URL.decode(registered.credentialID))
            let stored = try #require(
                try await ports.store.credential(applicationID: ports.application.id, credentialID: id))
            #expect(stored.userID == "alice" && stored.attestationFormat == "none")
            let claims = try await ports.loginTokens.validate(
                registered.token, application: ports.application, userID: "alice")
            #expect(claims?.credentialID == registered.credentialID)
            #expect(try await ports.events(.registrationSucceeded).map(\.userID) == ["alice"])
        }
    }

    @Test("sign-in verifies the assertion, issues a login token and records the signature counter and the use")
    func signsIn() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let device = Device.make()
            let registered = try await Self.register("alice", device: device, ports)
            let id = try #require(Base64URL.decode(registered.credentialID))
            ports.clock.advance(by: 60)
            let assertion = try await Self.assertion("alice", device: device, ports)
            let signed = try AuthenticatorData(bytes: assertion.response.authenticatorData.bytes).signCount
            let signIn = try await Self.verify(assertion, user: "alice", ports)
            #expect(signIn.userID == "alice" && signIn.credentialID == registered.credentialID)
            #expect(
                try await ports.loginTokens.validate(signIn.token, application: ports.application, userID: "alice")?
                    .credentialID == registered.credentialID)
            let stored = try #require(
                try await ports.store.credential(applicationID: ports.application.id, credentialID: id))
            #expect(signed > 0 && stored.signCount == signed)
            #expect(stored.lastUsedAt == ports.clock.now)
            #expect(try await ports.events(.authenticationSucceeded).map(\.userID) == ["alice"])
        }
    }

    @Test("an assertion replayed against its spent challenge is refused with the one failure message")
    func replayRefused() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let device = Device.make()
            let registered = try await Self.register("alice", device: device, ports)
            let id = try #require(Base64URL.decode(registered.credentialID))
            let assertion = try await Self.assertion("alice", device: device, ports)
            _ = try await Self.verify(assertion, user: "alice", ports)
            let counter = try await ports.store.credential(applicationID: ports.application.id, credentialID: id)?
                .signCount
            let replay = await #expect(throws: ServiceError.self) {
                _ = try await Self.verify(assertion, user: "alice", ports)
            }
            #expect(replay?.code == .unauthenticated)
            #expect(replay?.message == AuthenticationService.failureMessage)
            #expect(replay?.detail == "The challenge is unknown, expired or already used")
            let failed = try await ports.events(.authenticationFailed)
            #expect(failed.map(\.userID) == ["alice"])
            // Nothing of the replay was recorded as a use.
            #expect(
                try await ports.store.credential(applicationID: ports.application.id, credentialID: id)?.signCount
                    == counter)
        }
    }

    @Test("a refused assertion spends its challenge: the genuine assertion for it is refused afterwards")
    func refusalSpendsChallenge() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let device = Device.make()
            _ = try await Self.register("alice", device: device, ports)
            let genuine = try await Self.assertion("alice", device: device, ports)
            var forged = genuine
            var signature = forged.response.signature.bytes
            signature[signature.count / 2] ^= 0x01
            forged.response.signature = Base64URLBytes(signature)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.verify(forged, user: "alice", ports)
            }
            #expect(refused?.code == .unauthenticated)
            let late = await #expect(throws: ServiceError.self) {
                _ = try await Self.verify(genuine, user: "alice", ports)
            }
            #expect(late?.detail == "The challenge is unknown, expired or already used")
            #expect(try await ports.events(.authenticationSucceeded).isEmpty)
        }
    }

    @Test("an assertion signed for another application's RP ID is refused, though its origin and key are accepted")
    func otherRPIDRefused() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            // The passkey of another application (RP ID shop.test) ...
            let other = try await ports.addApplication(rpID: "shop.test", origins: ["https://shop.test"])
            let device = Device.make(origin: "https://shop.test")
            let theirs = try await Self.register("alice", device: device, ports, in: other)
            let id = try #require(Base64URL.decode(theirs.credentialID))
            let key = try #require(try await ports.store.credential(applicationID: other.id, credentialID: id))
            // ... known to this application too (same key, same user handle), whose origins include
            // shop.test: only the RP ID the authenticator signed for (§7.2 step 15) tells them apart.
            var application = ports.application
            application.origins.append("https://shop.test")
            try await ports.store.updateApplication(application)
            let owner = try #require(try await ports.store.user(applicationID: other.id, userID: "alice"))
            _ = try await ports.store.insertUser(
                UserRecord(
                    applicationID: ports.application.id, userID: "alice", userHandle: owner.userHandle,
                    displayName: "alice", createdAt: ports.clock.now))
            var copy = key
            copy.applicationID = ports.application.id
            try await ports.store.insertCredential(copy)

            let options = try await ports.authentication.options(
                AuthenticationOptionsRequest(applicationID: ports.application.id.uuidString, userID: "alice"),
                caller: ports.caller)
            #expect(options.publicKey.rpId == "example.com")
            var asShop = options.publicKey
            asShop.rpId = "shop.test"
            let assertion = try device.get(asShop, userVerified: true)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.verify(assertion, user: "alice", ports)
            }
            #expect(refused?.code == .unauthenticated && refused?.message == AuthenticationService.failureMessage)
            let reason = try await ports.events(.authenticationFailed).first?.details["reason"]?.stringValue
            #expect(reason?.contains("rpIdHash is not SHA-256 of \"example.com\"") == true, "\(reason ?? "no event")")
        }
    }

    @Test("an unknown user gets stable pseudo credentials, other than another unknown user's, and is not created")
    func unknownUser() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            _ = try await Self.register("alice", device: Device.make(), ports)
            func allowed(_ user: String) async throws -> [[UInt8]] {
                let options = try await ports.authentication.options(
                    AuthenticationOptionsRequest(applicationID: ports.application.id.uuidString, userID: user),
                    caller: ports.caller)
                return (options.publicKey.allowCredentials ?? []).map(\.id.bytes)
            }
            let first = try await allowed("mallory")
            #expect(!first.isEmpty)
            #expect(try await allowed("mallory") == first)
            #expect(try await allowed("trudy") != first)
            // Shaped like a real user's list: alice's one passkey of the same length.
            let alice = try await allowed("alice")
            #expect(first.map(\.count) == alice.map(\.count))
            #expect(Set(first).isDisjoint(with: alice))
            #expect(try await ports.store.user(applicationID: ports.application.id, userID: "mallory") == nil)
        }
    }
}
