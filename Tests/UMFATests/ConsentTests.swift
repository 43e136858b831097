import Foundation
import Synchronization
import Testing
import UMFA
import UMFAAuthenticator

/// The user's answers to the consent questions, fixed for a test, and what they were asked.
final class ConsentLog: Sendable {
    private let state = Mutex<(created: [NewCredentialConsentContext], excluded: [String])>(([], []))
    let create: WebAuthnUserConsentResult
    let excluded: WebAuthnUserConsentResult

    init(create: WebAuthnUserConsentResult = .allow, excluded: WebAuthnUserConsentResult = .allow) {
        self.create = create
        self.excluded = excluded
    }

    var created: [NewCredentialConsentContext] { state.withLock { $0.created } }
    var excludedAsked: [String] { state.withLock { $0.excluded } }

    /// Consent that answers as told after a pause, as a user looking at a dialog would.
    func consent() -> ConsentClosures {
        ConsentClosures(
            create: { context in
                try? await Task.sleep(for: .milliseconds(20))
                self.state.withLock { $0.created.append(context) }
                return self.create
            },
            excluded: { rpId in
                try? await Task.sleep(for: .milliseconds(20))
                self.state.withLock { $0.excluded.append(rpId) }
                return self.excluded
            })
    }
}

/// A ForgeRock-style delegate that answers twice (the second answer must be ignored).
struct ForgeRockDelegate: PlatformAuthenticatorRegistrationDelegate {
    let answer: WebAuthnUserConsentResult

    func excludeCredentialDescriptorConsent(consentCallback: @escaping WebAuthnUserConsentCallback) {
        consentCallback(answer)
        consentCallback(.allow)
    }

    func createNewCredentialConsent(
        keyName: String, rpName: String, rpId: String?, userName: String, userDisplayName: String,
        consentCallback: @escaping WebAuthnUserConsentCallback
    ) {
        Task.detached {
            consentCallback(answer)
            consentCallback(.allow)
        }
    }
}

@Suite("Consent and duplicates")
struct ConsentTests {
    @Test("a refused creation is cancelled, leaves nothing behind, and the hook saw the key, RP and user names")
    func refusedCreation() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.deviceName = "Kim's tablet"
            let asked = ConsentLog(create: .reject)
            let client = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: asked.consent())
            let error = await #expect(throws: ZSMError.self) { try await client.enroll(userId: "kim") }
            #expect(error?.code == .cancelled)
            let context = try #require(asked.created.first)
            #expect(context.keyName == "Kim's tablet" && context.userName == "kim")
            #expect(context.rpId == "localhost" && context.rpName == "SDK test shop")
            #expect(!context.userDisplayName.isEmpty)
            #expect(try storage.keyFiles().isEmpty)
            #expect(
                !FileManager.default.fileExists(atPath: storage.url.appendingPathComponent("enrollments.json").path))
            #expect(try await client.checkEnrollment(userId: "kim").enrolled == false)
            #expect(try await server.credentials(app, user: "kim").isEmpty)

            // A ForgeRock delegate that rejects (and calls back twice) cancels the same way.
            let forgeRock = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config),
                consent: .forgeRock(ForgeRockDelegate(answer: .reject)))
            let refused = await #expect(throws: ZSMError.self) { try await forgeRock.enroll(userId: "kim") }
            #expect(refused?.code == .cancelled)
            let allowing = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config),
                consent: .forgeRock(ForgeRockDelegate(answer: .allow)))
            #expect(try await allowing.enroll(userId: "kim").userId == "kim")
        }
    }

    @Test("enrolling the same user twice: reported (alreadyEnrolled) with consent, cancelled without")
    func alreadyEnrolled() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let first = try await UMFAClient(config).enroll(userId: "lee")
            let asked = ConsentLog()
            let reporting = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: asked.consent())
            let error = await #expect(throws: ZSMError.self) { try await reporting.enroll(userId: "lee") }
            #expect(error?.code == .alreadyEnrolled)
            #expect(asked.excludedAsked == ["localhost"])
            #expect(asked.created.isEmpty, "creation is not asked about once an excluded passkey is found")
            #expect(try storage.keyFiles() == [try storage.keyFile(credentialID: first.credentialId)])
            #expect(try await server.credentials(app, user: "lee").count == 1)
            #expect(try await UMFAClient(config).authenticate(userId: "lee").credentialId == first.credentialId)

            // A user who declines to reveal the existing passkey: NotAllowedError, a cancellation.
            let shy = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config),
                consent: ConsentLog(excluded: .reject).consent())
            let declined = await #expect(throws: ZSMError.self) { try await shy.enroll(userId: "lee") }
            #expect(declined?.code == .cancelled)
            let forgeRock = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config),
                consent: .forgeRock(ForgeRockDelegate(answer: .reject)))
            let hidden = await #expect(throws: ZSMError.self) { try await forgeRock.enroll(userId: "lee") }
            #expect(hidden?.code == .cancelled)
            #expect(try storage.keyFiles().count == 1)
        }
    }

    @Test("PasskeyAccountClient asks the consent hook; a refusal ends the sign-up as cancelled")
    func passkeyAccountConsent() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let refusing = ConsentLog(create: .reject)
            let accounts = try PasskeyAccountClient(
                device: fixture.device, oauth: fixture.oauth, authenticatorConsent: refusing.consent())
            let email = "rui.\(UUID().uuidString.prefix(8))@example.com"
            let error = await #expect(throws: FlowError.self) {
                _ = try await accounts.signUp(profile: AccountProfile(email: email), friendlyName: "Rui's phone")
            }
            #expect(error?.underlying?.code == .cancelled)
            #expect(refusing.created.map(\.keyName) == ["Rui's phone"])
            #expect(refusing.created.first?.userName == email)
            #expect(try storage.keyFiles().isEmpty)

            let allowing = ConsentLog()
            let signedUp = try await PasskeyAccountClient(
                device: fixture.device, oauth: fixture.oauth, authenticatorConsent: allowing.consent()
            ).signUp(profile: AccountProfile(email: email), friendlyName: "Rui's phone")
            #expect(signedUp.subject != nil && allowing.created.count == 1)
        }
    }
}
