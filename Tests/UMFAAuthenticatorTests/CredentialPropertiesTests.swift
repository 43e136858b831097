import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("credProps and credProtect")
struct CredentialPropertiesTests {
    @Test(
        "credProps.rk says whether the credential is discoverable",
        arguments: [(ResidentKeyRequirement.required, true), (.preferred, true), (.discouraged, false)])
    func credProps(residentKey: ResidentKeyRequirement, discoverable: Bool) throws {
        let response = try PRFFixture.client().create(
            PRFFixture.creation(["credProps": .bool(true)], residentKey: residentKey), userVerified: false)
        #expect(response.clientExtensionResults["credProps"] == .object(["rk": .bool(discoverable)]))
    }

    @Test("without the credProps input there is no credProps output")
    func credPropsNotAsked() throws {
        let response = try PRFFixture.client().create(Fixture.creationOptions(), userVerified: false)
        #expect(response.clientExtensionResults["credProps"] == nil)
    }

    static func protected(
        _ policy: CredentialProtectionPolicy, enforce: Bool = false, residentKey: ResidentKeyRequirement = .required
    ) -> CreationOptionsJSON {
        var extensions: [String: JSONValue] = ["credentialProtectionPolicy": .string(policy.name)]
        if enforce { extensions["enforceCredentialProtectionPolicy"] = .bool(true) }
        return PRFFixture.creation(extensions, residentKey: residentKey)
    }

    /// The `credProtect` level in the authenticator data's extension outputs, or `nil`.
    static func level(of response: RegistrationResponseJSON) throws -> Int? {
        let authData = try AuthenticatorData(bytes: try #require(response.response.authenticatorData).bytes)
        guard case .unsigned(let level)? = authData.extensions?["credProtect"] else { return nil }
        return Int(level)
    }

    @Test("level 3 is never used or revealed without user verification")
    func userVerificationRequired() throws {
        let client = PRFFixture.client()
        let created = try client.create(Self.protected(.userVerificationRequired), userVerified: true)
        #expect(try Self.level(of: created) == 3)
        let id = created.rawId.bytes
        for allow in [[id], []] {
            #expect(throws: AuthenticatorError(.notAllowed, "")) {
                try client.get(Fixture.requestOptions(allow: allow), userVerified: false)
            }
            #expect(try client.get(Fixture.requestOptions(allow: allow), userVerified: true).rawId.bytes == id)
        }
        // Not revealed through excludeCredentials either: a new credential is made.
        let again = try client.create(Fixture.creationOptions(exclude: [id]), userVerified: false)
        #expect(again.rawId.bytes != id)
        #expect(throws: AuthenticatorError(.invalidState, "")) {
            try client.create(Fixture.creationOptions(exclude: [id]), userVerified: true)
        }
    }

    @Test("level 2 is not discoverable without an allow list unless the user verifies")
    func credentialIDList() throws {
        let client = PRFFixture.client()
        let created = try client.create(
            Self.protected(.userVerificationOptionalWithCredentialIDList), userVerified: false)
        #expect(try Self.level(of: created) == 2)
        let id = created.rawId.bytes
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try client.get(Fixture.requestOptions(allow: []), userVerified: false)
        }
        #expect(try client.get(Fixture.requestOptions(allow: [id]), userVerified: false).rawId.bytes == id)
        #expect(try client.get(Fixture.requestOptions(allow: []), userVerified: true).rawId.bytes == id)
    }

    @Test("level 1 and no policy at all behave as before")
    func optional() throws {
        let client = PRFFixture.client()
        let created = try client.create(Self.protected(.userVerificationOptional), userVerified: false)
        #expect(try Self.level(of: created) == 1)
        #expect(try client.get(Fixture.requestOptions(allow: []), userVerified: false).rawId == created.rawId)
        let plain = try client.create(Fixture.creationOptions(residentKey: .required), userVerified: false)
        #expect(try Self.level(of: plain) == nil)
    }

    @Test("an enforced policy the authenticator does not support creates nothing; unenforced it is dropped")
    func enforcement() throws {
        let store = InMemoryCredentialStore()
        let client = PRFFixture.client(
            store: store, extensions: AuthenticatorExtensions.all.subtracting(.credentialProtection))
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try client.create(Self.protected(.userVerificationRequired, enforce: true), userVerified: true)
        }
        #expect(store.allCredentials().isEmpty)
        let created = try client.create(Self.protected(.userVerificationRequired), userVerified: true)
        #expect(try Self.level(of: created) == nil)
        #expect(store.allCredentials().first?.credentialProtection == .userVerificationOptional)
        // A supporting authenticator honours an enforced policy.
        let supporting = PRFFixture.client()
        let enforced = try supporting.create(
            Self.protected(.userVerificationRequired, enforce: true), userVerified: true)
        #expect(try Self.level(of: enforced) == 3)
    }

    @Test("the policy is kept with the credential in the directory store")
    func persisted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DirectoryCredentialStore(directory: directory)
        let created = try PRFFixture.client(store: store).create(
            Self.protected(.userVerificationRequired), userVerified: true)
        let reopened = try DirectoryCredentialStore(directory: directory)
        let stored = try #require(try reopened.credential(id: created.rawId.bytes))
        #expect(stored.credentialProtection == .userVerificationRequired)
        #expect(stored.sealedCredRandom != nil)
        #expect(throws: AuthenticatorError(.notAllowed, "")) {
            try PRFFixture.client(store: reopened).get(
                Fixture.requestOptions(allow: [created.rawId.bytes]), userVerified: false)
        }
    }
}
