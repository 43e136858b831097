import Foundation
import Synchronization
import Testing
import UMFAAuthenticator
import UMFAContract

@testable import UMFA

/// The out-of-band registration builder written statement by statement, its documented
/// defaults, its configuration check, and its authenticator and consent.
@Suite("Out-of-band registration builder: statements, defaults, checks")
struct OutOfBandBuilderTests {
    @Test("statement by statement: reg.pinEnroller(x); reg.execute() keeps the enroller")
    func statementByStatement() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "sam").enrollment.appLinkUri
            let outcome = Mutex<(OutOfBandRegistrationResult?, ZSMError?)>((nil, nil))
            let reg = OutOfBandRegistration(config: config)
            reg.appLink(uri: link)
            reg.authenticatorSelector { context in context.offered.contains(.pin) ? .pin : nil }
            reg.pinEnroller { _ in "4711" }
            reg.onSuccess { result in outcome.withLock { $0.0 = result } }
            reg.onError { error in outcome.withLock { $0.1 = error } }
            await reg.execute().value
            let (result, error) = outcome.withLock { $0 }
            #expect(error == nil, "\(String(describing: error))")
            #expect(result?.authenticator == .pin && result?.enrollment.userId == "sam")

            var signIn = config
            signIn.userVerification = .pin { _ in "4711" }
            let login = try await UMFAClient(signIn).authenticate(userId: "sam")
            #expect(try await server.validate(app, user: "sam", token: login.token).status == 200)
        }
    }

    @Test("without a verifier or enroller execute() fails clearly and the link stays unused")
    func needsVerifierOrEnroller() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "tia").enrollment.appLinkUri
            let failure = Mutex<ZSMError?>(nil)
            let bare = OutOfBandRegistration(config: config)
            bare.appLink(uri: link)
            bare.authenticatorSelector { _ in .pin }
            bare.onError { error in failure.withLock { $0 = error } }
            await bare.execute().value
            let error = try #require(failure.withLock { $0 })
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("pinEnroller") && error.message.contains("biometricUserVerifier"))

            // The dispatch token was not spent: the same link, now with an enroller, registers.
            bare.pinEnroller { _ in "4711" }
            #expect(try await bare.run().enrollment.userId == "tia")
        }
    }

    @Test("invalidateOnNewOsBiometrics is on unless turned off: a new finger ends the passkey")
    func invalidatesByDefault() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let sensor = FakeBiometrics()
            let link = try await server.startEnrollment(app, user: "uma").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor).run()
            let record = try String(contentsOf: storage.url.appendingPathComponent("enrollments.json"), encoding: .utf8)
            #expect(record.contains("biometricSetHash"))
            sensor.addFinger("right thumb")
            let client = UMFAClient(OutOfBandRegistrationTests.biometricSignIn(config, sensor))
            let gone = await #expect(throws: ZSMError.self) { try await client.authenticate(userId: "uma") }
            #expect(gone?.code == .keyDisappearedPermanently)
        }
    }

    @Test("the builder's consent and authenticator: a refusal cancels; another authenticator registers")
    func consentAndAuthenticator() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let refusing = ConsentLog(create: .reject)
            let refused = await #expect(throws: ZSMError.self) {
                try await OutOfBandRegistration(config: config)
                    .appLink(uri: try await server.startEnrollment(app, user: "vic").enrollment.appLinkUri)
                    .authenticatorSelector { _ in .pin }.pinEnroller { _ in "4711" }
                    .authenticatorConsent(refusing.consent()).run()
            }
            #expect(refused?.code == .cancelled)
            #expect(refusing.created.first?.userName == "vic")
            #expect(try await server.credentials(app, user: "vic").isEmpty)

            let platform = IndependentTestAuthenticator(origin: server.origin)
            let registered = try await OutOfBandRegistration(config: config)
                .appLink(uri: try await server.startEnrollment(app, user: "wes").enrollment.appLinkUri)
                .authenticatorSelector { _ in .devicePasscode }.devicePasscodeUserVerifier(FakePasscode())
                .authenticator(platform).run()
            #expect(platform.creates == 1 && registered.enrollment.userId == "wes")
            #expect(try storage.keyFiles().isEmpty)
            let stored = try await server.credentials(app, user: "wes")
            #expect(stored.first?.objectValue?["aaguid"]?.stringValue == AuthenticatorSeamTests.independentAAGUID)
        }
    }
}
