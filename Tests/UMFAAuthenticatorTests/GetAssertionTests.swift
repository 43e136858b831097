import Foundation
import Testing
import UMFAAuthenticator
import UMFAWebAuthn

@Suite("Software authenticator: get assertion")
struct GetAssertionTests {
    @Test("assertions verify with the relying-party core and the counter grows by one each time")
    func assertionRoundTripWithCounter() async throws {
        let client = Fixture.client()
        var record = try await Fixture.register(client).record
        let verifier = AuthenticationVerifier(policy: Fixture.policy())
        for expected in UInt32(1)...3 {
            let options = Fixture.requestOptions(challenge: Fixture.challenge(UInt8(expected) * 7), allow: [record.id])
            let response = try client.get(options, userVerified: false)
            let result = try verifier.verify(
                response, expectedChallenge: options.challenge.bytes, credential: record,
                allowCredentials: [record.id], identifiedUserHandle: Fixture.user.id.bytes)
            #expect(result.authenticatorData.signCount == expected)
            record = result.record
        }
        #expect(record.signCount == 3)
    }

    @Test("the counter is saved before the signature is returned")
    func counterPersisted() throws {
        let store = InMemoryCredentialStore()
        let client = Fixture.client(store: store)
        let created = try client.create(Fixture.creationOptions(), userVerified: false)
        _ = try client.get(Fixture.requestOptions(allow: [created.rawId.bytes]), userVerified: false)
        _ = try client.get(Fixture.requestOptions(allow: [created.rawId.bytes]), userVerified: false)
        #expect(store.credentials(rpID: Fixture.rpID).first?.signCount == 2)
    }

    @Test("an empty allow list is answered only by a discoverable credential, with its user handle")
    func discoverableCredential() async throws {
        let store = InMemoryCredentialStore()
        let client = Fixture.client(store: store)
        _ = try client.create(Fixture.creationOptions(), userVerified: false)
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try client.get(Fixture.requestOptions(), userVerified: false)
        }
        let record = try await Fixture.register(client, options: Fixture.creationOptions(residentKey: .required)).record
        let options = Fixture.requestOptions()
        let response = try client.get(options, userVerified: false)
        #expect(response.rawId.bytes == record.id)
        #expect(response.response.userHandle?.bytes == Fixture.user.id.bytes)
        // The relying party identifies the user from the user handle alone (§7.2 step 6).
        let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            response, expectedChallenge: options.challenge.bytes, credential: record)
        #expect(result.authenticatorData.signCount == 1)
    }

    @Test("an allow list naming only unknown credentials is not allowed")
    func unknownCredential() throws {
        let client = Fixture.client()
        _ = try client.create(Fixture.creationOptions(residentKey: .required), userVerified: false)
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try client.get(Fixture.requestOptions(allow: [[1, 2, 3]]), userVerified: false)
        }
    }

    @Test("required user verification: refused without it, UV flag set with it")
    func userVerification() throws {
        let client = Fixture.client()
        let created = try client.create(Fixture.creationOptions(), userVerified: true)
        let options = Fixture.requestOptions(allow: [created.rawId.bytes], userVerification: .required)
        #expect(throws: AuthenticatorError(.userVerificationFailed, "")) {
            try client.get(options, userVerified: false)
        }
        let response = try client.get(options, userVerified: true)
        let flags = try AuthenticatorData(bytes: response.response.authenticatorData.bytes).flags
        #expect(flags.isUserVerified)
        #expect(!flags.isBackupEligible)
        #expect(!flags.isBackedUp)
    }

    @Test("credentials of another RP ID are invisible")
    func rpIsolation() throws {
        let store = InMemoryCredentialStore()
        let created = try Fixture.client(store: store).create(Fixture.creationOptions(), userVerified: false)
        let other = Fixture.client(store: store, origin: "https://other.example")
        var options = Fixture.requestOptions(allow: [created.rawId.bytes])
        options.rpId = "other.example"
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try other.get(options, userVerified: false)
        }
    }
}
