import Foundation
import Testing
import UMFAAuthenticator
import UMFAContract
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("Ceremony edges")
struct CeremonyEdgeTests {
    @Test("discoverable sign-in without a user_id finds the user from the credential")
    func discoverableSignIn() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let registered = try await api.register(
                app, user: "frank", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "frank"))
            let options = try await api.authenticationOptions(app, user: nil)
            #expect(options["publicKey"]?["allowCredentials"]?.arrayValue?.isEmpty ?? true)
            let signIn = try await api.authenticate(app, user: nil, device: device)
            #expect(signIn.userID == "frank")
            #expect(signIn.credentialID == registered.credentialID)
            #expect(try await api.validate(app, user: "frank", token: .string(signIn.token)).status == .ok)
        }
    }

    @Test("a credential id registered already is refused with 409 and the first owner keeps it")
    func credentialIDReuse() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let fixedID: @Sendable (Int) -> [UInt8] = { Array(repeating: 0x42, count: $0) }
            let first = WebAuthnClient(
                origin: TestApplication.origin,
                authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore(), randomBytes: fixedID))
            let clone = WebAuthnClient(
                origin: TestApplication.origin,
                authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore(), randomBytes: fixedID))
            let owner = try await api.register(
                app, user: "grace", device: first, enrollmentToken: try await api.enrollmentToken(app, user: "grace"))
            let options = try await api.registrationOptions(
                app, user: "heidi", enrollmentToken: try await api.enrollmentToken(app, user: "heidi"))
            let credential = try clone.create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            #expect(credential.rawId.base64URL == owner.credentialID)
            let reply = try await api.post(
                APIOperation.registrationVerify.path,
                .object([
                    "application_id": .string(app.id), "user_id": "heidi", "credential": try .encoding(credential),
                ]))
            expectError(reply, .conflict, message: "This credential is already registered")
            let signIn = try await api.authenticate(app, user: "grace", device: first)
            #expect(signIn.userID == "grace")
        }
    }

    @Test("only a discoverable sign-in presenting a credential the application does not hold names unknown_credential")
    func unknownCredentialReason() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let enrolled = try await api.register(
                app, user: "judy", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "judy"))
            // Assertions of the passkey for a discoverable challenge and for one naming its user.
            let discoverable = try await api.assertion(app, user: nil, device: device)
            let named = try await api.assertion(app, user: "judy", device: device)
            let removed = try await api.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": "judy", "credential_id": enrolled.credentialID])
                    + "?application_id=\(app.id)", bearer: app.apiKey)
            #expect(removed.status == .ok, "\(removed.text)")

            // The browser chose the passkey: the page may tell it to forget it (Signal API).
            let unknown = try await api.verifyAssertion(app, user: nil, credential: discoverable)
            #expect(unknown.status == .unauthorized)
            #expect(unknown["message"]?.stringValue == "Authentication failed")
            #expect(unknown["reason"]?.stringValue == "unknown_credential", "\(unknown.text)")
            // The challenge listed the user's ids (pseudo ones for an unknown user): the one failure,
            // so the answer never tells whether a named user exists.
            let refused = try await api.verifyAssertion(app, user: "judy", credential: named)
            expectError(refused, .unauthorized, message: "Authentication failed")
        }
    }

    @Test("a challenge serves only its own ceremony")
    func challengeBoundToCeremony() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            _ = try await api.register(
                app, user: "ivan", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "ivan"))
            let registration = try await api.registrationOptions(
                app, user: "ivan", enrollmentToken: try await api.enrollmentToken(app, user: "ivan"))
            let creation = try #require(registration["publicKey"]).decoded(CreationOptionsJSON.self)
            let signIn = try await api.authenticationOptions(app, user: "ivan")
            var request = try #require(signIn["publicKey"]).decoded(RequestOptionsJSON.self)
            request.challenge = creation.challenge
            let assertion = try device.get(request, userVerified: true)
            let reply = try await api.verifyAssertion(app, user: "ivan", credential: assertion)
            expectError(reply, .unauthorized, message: "Authentication failed")
        }
    }
}
