import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@testable import UMFA

/// The ``Authenticator`` seam: the SDK's ceremonies with an authenticator that is not UMFA's
/// software one, against a live server.
@Suite("Authenticator protocol")
struct AuthenticatorSeamTests {
    /// "independent test" as the server prints an AAGUID.
    static let independentAAGUID = "696e6465-7065-6e64-656e-742074657374"

    @Test("UMFAClient: enroll, check, sign in and unenroll with an independent authenticator")
    func umfaClient() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant", userVerification: "required")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let platform = IndependentTestAuthenticator(origin: server.origin)
            let client = UMFAClient(config, relyingParty: UMFAHTTPRelyingParty(config: config), authenticator: platform)

            let enrolled = try await client.enroll(userId: "nora")
            #expect(platform.creates == 1 && enrolled.authenticator == "external")
            #expect(enrolled.dictionary["authenticator"] as? String == "external")
            #expect(platform.credentialIDs.map(Base64URL.encode) == [enrolled.credentialId])
            #expect(try storage.keyFiles().isEmpty, "the software authenticator made nothing")
            let stored = try await server.credentials(app, user: "nora")
            #expect(stored.first?.objectValue?["aaguid"]?.stringValue == Self.independentAAGUID, "\(stored)")
            #expect(try await client.checkEnrollment(userId: "nora").enrolled)

            let login = try await client.authenticate(userId: "nora")
            #expect(platform.gets == 1 && login.credentialId == enrolled.credentialId)
            #expect(try await server.validate(app, user: "nora", token: login.token).status == 200)

            // The same authenticator again for the same user: the server excludes its passkey.
            let twice = await #expect(throws: ZSMError.self) { try await client.enroll(userId: "nora") }
            #expect(twice?.code == .alreadyEnrolled)

            // The software authenticator on the same storage holds no key for this user.
            let software = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "nora")
            }
            #expect(software?.code == .notEnrolled)

            #expect(await client.unenroll(userId: "nora"))
            #expect(try await server.credentials(app, user: "nora").isEmpty)
            #expect(try await client.checkEnrollment(userId: "nora").enrolled == false)
        }
    }

    @Test("PasskeyAccountClient: sign up and log in (by email and discoverable) with an independent authenticator")
    func passkeyAccounts() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let platform = IndependentTestAuthenticator(origin: server.origin)
            var device = fixture.device
            device.userVerification = .none
            let accounts = try PasskeyAccountClient(device: device, oauth: fixture.oauth, authenticator: platform)
            let email = "nils.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await accounts.signUp(profile: AccountProfile(email: email), friendlyName: "Nils's key")
            let subject = try #require(signedUp.subject)
            #expect(platform.creates == 1)
            let stored = try await server.credentials(fixture.app, user: subject)
            #expect(stored.first?.objectValue?["aaguid"]?.stringValue == Self.independentAAGUID, "\(stored)")
            #expect(try storage.keyFiles().isEmpty)

            #expect(try await accounts.logIn(email: email).subject == subject)
            #expect(try await accounts.logIn(email: nil).subject == subject)
            #expect(platform.gets == 2)
        }
    }

    @Test("the software authenticator through the protocol: DOMException codes, consent, extension results")
    func softwareThroughProtocol() async throws {
        let client = WebAuthnClient(
            origin: "https://shop.example",
            authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore(), scryptRounds: 1 << 10))
        let authenticator: any Authenticator = client
        var options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: "shop.example", name: "Shop"),
            user: UserEntity(id: Base64URLBytes([1, 2, 3]), name: "ana", displayName: "Ana Silva"),
            challenge: Base64URLBytes(Array(repeating: 7, count: 32)),
            pubKeyCredParams: [CredentialParameters(alg: .es256)])
        options.extensions = ["credProps": .bool(true)]
        let asked = ConsentLog()
        let created = try await authenticator.create(options, context: AuthenticatorContext(consent: asked.consent()))
        #expect(created.clientExtensionResults["credProps"] == .object(["rk": .bool(false)]))
        #expect(asked.created.map(\.userDisplayName) == ["Ana Silva"])

        options.excludeCredentials = [CredentialDescriptor(id: created.rawId)]
        let reported = await #expect(throws: PublicKeyCredentialError.self) {
            try await authenticator.create(options, context: AuthenticatorContext())
        }
        #expect(reported?.code == .invalidState)
        let hidden = await #expect(throws: PublicKeyCredentialError.self) {
            try await authenticator.create(
                options, context: AuthenticatorContext(consent: ConsentLog(excluded: .reject).consent()))
        }
        #expect(hidden?.code == .notAllowed)

        options.rp.id = "elsewhere.example"
        let foreign = await #expect(throws: PublicKeyCredentialError.self) {
            try await authenticator.create(options, context: AuthenticatorContext())
        }
        #expect(foreign?.code == .security)
        let missing = await #expect(throws: PublicKeyCredentialError.self) {
            try await authenticator.get(
                RequestOptionsJSON(
                    challenge: Base64URLBytes([1]), rpId: "shop.example",
                    allowCredentials: [CredentialDescriptor(id: Base64URLBytes([9, 9]))]),
                context: AuthenticatorContext())
        }
        #expect(missing?.code == .notAllowed)
        #expect(missing?.code.rawValue == "NotAllowedError")
        #expect(missing?.authenticatorError?.code == .notAllowed)
    }
}
