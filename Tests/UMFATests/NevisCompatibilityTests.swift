import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAServer

@testable import UMFA

/// A push service that remembers the tokens each approval was sent to.
final class RecordingDispatcher: ApprovalDispatcher {
    private let notices = Mutex<[ApprovalNotice]>([])
    var pushTokens: [[String]] { notices.withLock { $0.map(\.pushTokens) } }

    func dispatch(_ notice: ApprovalNotice) async throws {
        notices.withLock { $0.append(notice) }
    }
}

/// The Nevis out-of-band registration as its documentation shows it (docs/sdk-products.md,
/// Nevis rows), in UMFA's names, against a live server.
@Suite("Compatibility: Nevis out-of-band registration")
struct NevisCompatibilityTests {
    @Test(
        "the documented sequence: device information, enroll response, selector, verifiers, enrollers, onSuccess, onError, execute"
    )
    func documentedRegistration() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let started = try await server.startEnrollment(app, user: "ada")
            let outcome = Mutex<(OutOfBandRegistrationResult?, ZSMError?)>((nil, nil))
            // Statement by statement, as the document's Objective-C does.
            let registration = OutOfBandRegistration(config: config)
            registration.deviceInformation(name: "Ada's phone", pushToken: "fcm-token-1")
            registration.enrollResponse(json: try JSONEncoder().encode(started))
            registration.authenticatorSelector { context in context.offered.contains(.pin) ? .pin : nil }
            registration.biometricUserVerifier(FakeBiometrics())
            registration.devicePasscodeUserVerifier(FakePasscode())
            registration.pinEnroller { _ in "2468" }
            registration.passwordEnroller { _ in "correct horse" }
            registration.onSuccess { result in outcome.withLock { $0.0 = result } }
            registration.onError { error in outcome.withLock { $0.1 = error } }
            await registration.execute().value

            let (result, error) = outcome.withLock { $0 }
            #expect(error == nil)
            #expect(result?.authenticator == .pin && result?.enrollment.userId == "ada")
            let status = try await server.transactionStatus(started.enrollment.statusToken)
            #expect(status["status"]?.stringValue == "succeeded")
            let stored = try await server.credentials(app, user: "ada")
            #expect(stored.first?.objectValue?["device_name"]?.stringValue == "Ada's phone")
        }
    }

    @Test("a PIN picked without a pinEnroller reaches onError as userNotEnrolled")
    func pinWithoutEnroller() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "bea").enrollment.appLinkUri
            let failure = Mutex<ZSMError?>(nil)
            await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .pin }.passwordEnroller { _ in "correct horse" }
                .onSuccess { _ in Issue.record("registered without a PIN enroller") }
                .onError { error in failure.withLock { $0 = error } }
                .execute().value
            #expect(failure.withLock { $0?.code } == .userNotEnrolled)
        }
    }

    @Test("invalidateOnNewOsBiometrics is on unless turned off: the builder and ZSMConfig.biometric alike")
    func invalidationIsTheDefault() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let sensor = FakeBiometrics()
            let link = try await server.startEnrollment(app, user: "cy").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor).run()

            // The configuration's own biometric choice, without the builder, defaults the same.
            var direct = config
            direct.enrollmentTokenProvider = server.grants(app)
            direct.userVerification = .biometric(sensor)
            _ = try await UMFAClient(direct).enroll(userId: "dee")

            sensor.addFinger("right thumb")
            for user in ["cy", "dee"] {
                let gone = await #expect(throws: ZSMError.self) {
                    try await UMFAClient(direct).authenticate(userId: user)
                }
                #expect(gone?.code == .keyDisappearedPermanently, "\(user)")
            }
        }
    }

    @Test("allowDevicePasscodeAsFallback(true) without a devicePasscodeUserVerifier is refused before the link is used")
    func fallbackNeedsPasscodeVerifier() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "eve").enrollment.appLinkUri
            let passcode = FakePasscode()
            func base() -> OutOfBandRegistration {
                OutOfBandRegistration(config: config).appLink(uri: link)
                    .authenticatorSelector { _ in .biometric }.biometricUserVerifier(FakeBiometrics(fingers: []))
                    .allowDevicePasscodeAsFallback(true)
            }
            let refused = await #expect(throws: ZSMError.self) { try await base().run() }
            #expect(refused?.code == .invalidConfiguration)
            #expect(refused?.message.contains("devicePasscodeUserVerifier") == true)

            // Nothing was redeemed: the same link registers once the verifier is given.
            let result = try await base().devicePasscodeUserVerifier(passcode).run()
            #expect(result.authenticator == .devicePasscode && passcode.prompts == 1)
        }
    }

    @Test("the passcode fallback chosen at registration holds for the sign-ins after it")
    func fallbackIsRemembered() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let sensor = FakeBiometrics()
            let passcode = FakePasscode()
            for (user, allowed) in [("fred", false), ("gail", true)] {
                let link = try await server.startEnrollment(app, user: user).enrollment.appLinkUri
                _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                    .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor)
                    .devicePasscodeUserVerifier(passcode).allowDevicePasscodeAsFallback(allowed)
                    .invalidateOnNewOsBiometrics(false).run()
            }
            // Later the finger does not match; the app's sign-in configuration offers the passcode.
            var signIn = config
            signIn.userVerification = .biometric(
                FakeBiometrics(answer: .noMatch), devicePasscodeFallback: passcode, invalidateOnNewOsBiometrics: false)
            let client = UMFAClient(signIn)
            let refused = await #expect(throws: ZSMError.self) { try await client.authenticate(userId: "fred") }
            #expect(refused?.code == .userVerificationFailed)
            #expect(passcode.prompts == 0, "fred registered without the fallback")
            let login = try await client.authenticate(userId: "gail")
            #expect(try await server.validate(app, user: "gail", token: login.token).status == 200)
            #expect(passcode.prompts == 1)
        }
    }

    @Test("device information given in an earlier registration stays; a later registration's is ignored")
    func deviceInformationOfARegisteredDevice() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            for (user, name) in [("hal", "Hal's phone"), ("ida", "Another name")] {
                let link = try await server.startEnrollment(app, user: user).enrollment.appLinkUri
                _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                    .deviceInformation(name: name, pushToken: "fcm-\(user)")
                    .authenticatorSelector { _ in .pin }.pinEnroller { _ in "2468" }.run()
            }
            for user in ["hal", "ida"] {
                let stored = try await server.credentials(app, user: user)
                #expect(stored.first?.objectValue?["device_name"]?.stringValue == "Hal's phone", "\(user)")
            }
        }
    }

    @Test("device information changes after enrollment: a new push token reaches the push service")
    func deviceInformationUpdated() async throws {
        let push = RecordingDispatcher()
        // The server's own public URL, which device proofs (`htu`) name.
        try await LiveServer.with(ownPublicURL: true, approvalDispatchers: [push]) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let client = UMFAClient(config)
            let none = await #expect(throws: ZSMError.self) {
                try await client.updateDeviceInformation(DeviceInformation(name: "Jo's phone", pushToken: "fcm-2"))
            }
            #expect(none?.code == .notEnrolled)

            let link = try await server.startEnrollment(app, user: "jo").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .deviceInformation(DeviceInformation(name: "Jo's phone", pushToken: "fcm-1"))
                .authenticatorSelector { _ in .pin }.pinEnroller { _ in "2468" }.run()
            _ = try await server.startApproval(app, user: "jo", message: "Pay 5 EUR")
            try await client.updateDeviceInformation(DeviceInformation(name: "Jo's phone", pushToken: "fcm-2"))
            _ = try await server.startApproval(app, user: "jo", message: "Pay 6 EUR")
            #expect(push.pushTokens == [["fcm-1"], ["fcm-2"]])
            // Without the device's proof nobody changes it.
            let unproven = try await server.send(
                .post, APIOperation.updateDeviceInformation.path,
                json: .object([
                    "application_id": .string(app.id), "user_id": "jo", "name": "Mallory's phone",
                    "push_token": "fcm-mallory",
                ]), bearer: app.apiKey)
            #expect(unproven.status == 401)
            _ = try await server.startApproval(app, user: "jo", message: "Pay 8 EUR")
            #expect(push.pushTokens.last == ["fcm-2"])

            // A later registration on this device sends the updated information, not its own.
            let second = try await server.startEnrollment(app, user: "kit").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: second)
                .deviceInformation(name: "Kit's phone", pushToken: "fcm-kit")
                .authenticatorSelector { _ in .pin }.pinEnroller { _ in "2468" }.run()
            _ = try await server.startApproval(app, user: "kit", message: "Pay 7 EUR")
            #expect(push.pushTokens.last == ["fcm-2"])
        }
    }
}
