import Foundation
import Synchronization
import Testing
import UMFAAuthenticator
import UMFAWebAuthnTypes

@testable import UMFA

/// A `PlatformAuthenticatorRegistrationDelegate` as ForgeRock's document writes one: it answers
/// each question once, as told, and remembers what it was asked.
final class DocumentedDelegate: PlatformAuthenticatorRegistrationDelegate, Sendable {
    private let asked = Mutex<(excluded: Int, created: [String])>((0, []))
    let create: WebAuthnUserConsentResult
    let excluded: WebAuthnUserConsentResult

    init(create: WebAuthnUserConsentResult = .allow, excluded: WebAuthnUserConsentResult = .allow) {
        self.create = create
        self.excluded = excluded
    }

    var excludedAsked: Int { asked.withLock { $0.excluded } }
    var createdAsked: [String] { asked.withLock { $0.created } }

    func excludeCredentialDescriptorConsent(consentCallback: @escaping WebAuthnUserConsentCallback) {
        asked.withLock { $0.excluded += 1 }
        consentCallback(excluded)
    }

    func createNewCredentialConsent(
        keyName: String, rpName: String, rpId: String?, userName: String, userDisplayName: String,
        consentCallback: @escaping WebAuthnUserConsentCallback
    ) {
        asked.withLock { $0.created.append("\(keyName)|\(rpName)|\(rpId ?? "")|\(userName)") }
        consentCallback(create)
    }
}

/// A relying party whose registration node has "Limit registrations" off: its creation options
/// name no credential to exclude.
struct UnlimitedRegistrations: RelyingParty {
    let base: UMFAHTTPRelyingParty

    func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        let begun = try await base.beginRegistration(
            userId: userId, displayName: displayName, enrollmentToken: enrollmentToken)
        var options = begun.options
        options.excludeCredentials = nil
        return CeremonyOptions(options: options, traceId: begun.traceId)
    }

    func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        try await base.finishRegistration(userId: userId, credential: credential, deviceName: deviceName)
    }

    func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        try await base.beginAuthentication(userId: userId)
    }

    func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        try await base.finishAuthentication(userId: userId, credential: credential)
    }

    func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome {
        try await base.unenroll(userId: userId, credential: credential)
    }
}

/// ForgeRock's WebAuthn registration delegate as its documentation shows it
/// (docs/sdk-products.md, ForgeRock rows), in UMFA's names, against a live server.
@Suite("Compatibility: ForgeRock WebAuthn registration delegate")
struct ForgeRockCompatibilityTests {
    @Test("createNewCredentialConsent: .allow registers, with the key, RP and user names; .reject is cancelled")
    func createConsent() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.deviceName = "Kim's phone"
            let refusing = DocumentedDelegate(create: .reject)
            let refused = await #expect(throws: ZSMError.self) {
                try await UMFAClient(
                    config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: .forgeRock(refusing)
                ).enroll(userId: "kim")
            }
            #expect(refused?.code == .cancelled)
            #expect(try await server.credentials(app, user: "kim").isEmpty)

            let allowing = DocumentedDelegate()
            let enrolled = try await UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: .forgeRock(allowing)
            ).enroll(userId: "kim")
            #expect(enrolled.userId == "kim")
            #expect(allowing.createdAsked == ["Kim's phone|SDK test shop|localhost|kim"])
            #expect(allowing.excludedAsked == 0, "nothing of kim's was on the device")
        }
    }

    @Test("limit registrations on: excludeCredentialDescriptorConsent .allow is invalidState, .reject notAllowed")
    func excludedWithLimit() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            _ = try await UMFAClient(config).enroll(userId: "lee")
            for (answer, code) in [
                (WebAuthnUserConsentResult.allow, ZSMError.Code.alreadyEnrolled), (.reject, .cancelled),
            ] {
                let delegate = DocumentedDelegate(excluded: answer)
                let client = UMFAClient(
                    config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: .forgeRock(delegate))
                let error = await #expect(throws: ZSMError.self) { try await client.enroll(userId: "lee") }
                #expect(error?.code == code, "\(answer)")
                #expect(delegate.excludedAsked == 1 && delegate.createdAsked.isEmpty)
            }
            // The same outcomes at the authenticator, in WebAuthn's names.
            let begun = try await UMFAHTTPRelyingParty(config: config).beginRegistration(
                userId: "lee", displayName: nil, enrollmentToken: try await server.enrollmentToken(app, user: "lee"))
            let authenticator = try UMFAClient(config).device().client
            for (answer, code) in [
                (WebAuthnUserConsentResult.allow, PublicKeyCredentialError.Code.invalidState), (.reject, .notAllowed),
            ] {
                let context = AuthenticatorContext(
                    consent: DelegateConsent.forgeRock(DocumentedDelegate(excluded: answer)))
                let error = await #expect(throws: PublicKeyCredentialError.self) {
                    try await authenticator.create(begun.options, context: context)
                }
                #expect(error?.code == code, "\(answer)")
            }
        }
    }

    @Test("limit registrations off: the exclude hook is not asked and another passkey is made")
    func noExcludeWithoutLimit() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let first = try await UMFAClient(config).enroll(userId: "max")
            let delegate = DocumentedDelegate()
            let unlimited = UMFAClient(
                config, relyingParty: UnlimitedRegistrations(base: UMFAHTTPRelyingParty(config: config)),
                consent: .forgeRock(delegate))
            let second = try await unlimited.enroll(userId: "max")
            #expect(second.credentialId != first.credentialId)
            #expect(delegate.excludedAsked == 0 && delegate.createdAsked.count == 1)
            #expect(try await server.credentials(app, user: "max").count == 2)
        }
    }
}
