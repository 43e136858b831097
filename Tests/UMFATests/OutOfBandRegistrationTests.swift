import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFA

/// The platform's biometric sensor, faked (Linux has none): the enrolled fingers make the
/// biometric set; each prompt answers as told.
final class FakeBiometrics: BiometricUserVerifier {
    enum Answer: Sendable {
        case match, noMatch, cancel
    }

    private let state: Mutex<(fingers: [String], answer: Answer, prompts: Int)>

    init(fingers: [String] = ["left thumb"], answer: Answer = .match) {
        state = Mutex((fingers, answer, 0))
    }

    /// The user adds a finger in the operating system's settings.
    func addFinger(_ finger: String) { state.withLock { $0.fingers.append(finger) } }
    var prompts: Int { state.withLock { $0.prompts } }

    func currentBiometricSet() async -> Data? {
        state.withLock { $0.fingers.isEmpty ? nil : Data($0.fingers.joined(separator: "|").utf8) }
    }

    func verifyUser(reason: String) async throws -> Bool {
        let answer = state.withLock { state in
            state.prompts += 1
            return state.answer
        }
        if answer == .cancel { throw CancellationError() }
        return answer == .match
    }
}

/// The platform's device-passcode prompt, faked: always right; counts its prompts.
final class FakePasscode: DevicePasscodeUserVerifier {
    private let count = Mutex(0)
    var prompts: Int { count.withLock { $0 } }

    func verifyUser(reason: String) async throws -> Bool {
        count.withLock { $0 += 1 }
        return true
    }
}

extension LiveServer {
    /// The backend starts an out-of-band enrollment (`POST /api/umfa/users/enroll`). The
    /// in-process server listens on port 0, so its links name port 0; the link is pointed at
    /// the port it really has, as `UMFA_PUBLIC_URL` does for a deployment.
    func startEnrollment(_ app: TestApplication, user: String) async throws -> OutOfBandEnrollResponse {
        let reply = try await send(
            .post, APIOperation.outOfBandEnroll.path,
            json: .object(["application_id": .string(app.id), "user_id": .string(user)]), bearer: app.apiKey)
        guard reply.status == 200 else { throw TestFailure("enroll failed: \(reply.status) \(reply.text)") }
        var response = try JSONDecoder().decode(OutOfBandEnrollResponse.self, from: Data(reply.text.utf8))
        response.enrollment.appLinkUri = try reachable(response.enrollment.appLinkUri)
        return response
    }

    /// The backend asks `user` to approve `message` (`POST /api/umfa/approvals`); the app link.
    func startApproval(_ app: TestApplication, user: String, message: String) async throws -> String {
        let body: JSONValue = .object([
            "application_id": .string(app.id), "user_id": .string(user), "message": .string(message),
        ])
        let reply = try await send(.post, APIOperation.createApproval.path, json: body, bearer: app.apiKey)
        guard reply.status == 201, let link = reply["appLinkUri"]?.stringValue else {
            throw TestFailure("approvals failed: \(reply.status) \(reply.text)")
        }
        return try reachable(link)
    }

    /// The transaction's status as the backend polls it.
    func transactionStatus(_ statusToken: String) async throws -> Reply {
        try await send(.post, APIOperation.transactionStatus.path, json: .object(["statusToken": .string(statusToken)]))
    }

    func reachable(_ link: String) throws -> String {
        let value = try #require(URLComponents(string: link)?.queryItems?.first?.value)
        var payload = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(Base64URL.decode(value) ?? [])))
        payload = .object((payload.objectValue ?? [:]).merging(["server": .string(origin)]) { $1 })
        return origin + "/open?dispatchTokenResponse=" + Base64URL.encode(try JSONEncoder().encode(payload))
    }
}

@Suite("Out-of-band registration builder")
struct OutOfBandRegistrationTests {
    /// An application, a device and a registration base whose PIN seals are fast.
    static func setUp(_ server: LiveServer, _ storage: DeviceStorage) async throws -> (TestApplication, ZSMConfig) {
        let app = try await server.createApplication(policy: "grant")
        var config = server.config(app, storage: storage)
        config.scryptRounds = 1 << 10
        return (app, config)
    }

    /// A device configuration that signs in to the link's application with biometrics.
    static func biometricSignIn(_ config: ZSMConfig, _ sensor: FakeBiometrics) -> ZSMConfig {
        var config = config
        config.userVerification = .biometric(sensor)
        return config
    }

    @Test("exactly one of an enroll response and an app link; a refused builder redeems nothing")
    func exactlyOneSource() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let started = try await server.startEnrollment(app, user: "alice")
            // A builder is one registration: each attempt starts a fresh one.
            func base() -> OutOfBandRegistration {
                OutOfBandRegistration(config: config).authenticatorSelector { _ in .pin }.pinEnroller { _ in "4711" }
            }

            let neither = await #expect(throws: ZSMError.self) { try await base().run() }
            #expect(neither?.code == .invalidConfiguration)
            let both = await #expect(throws: ZSMError.self) {
                try await base().enrollResponse(started).appLink(uri: started.enrollment.appLinkUri).run()
            }
            #expect(both?.code == .invalidConfiguration)
            #expect(both?.message.contains("not both") == true)
            let garbled = await #expect(throws: ZSMError.self) {
                try await base().enrollResponse(json: Data("{}".utf8)).run()
            }
            #expect(garbled?.code == .invalidConfiguration)
            let notALink = await #expect(throws: ZSMError.self) {
                try await base().appLink(uri: "https://example.com/open").run()
            }
            #expect(notALink?.code == .invalidConfiguration)

            // The dispatch token is still unused: the enroll response alone registers.
            let result = try await base().enrollResponse(started).run()
            #expect(result.enrollment.userId == "alice" && result.authenticator == .pin)
            #expect(result.transactionId == started.enrollment.transactionId)
        }
    }

    @Test("the selector sees what is offered; a pick without its enroller or verifier is userNotEnrolled")
    func missingEnroller() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "bob").enrollment.appLinkUri
            let seen = Mutex<[AuthenticatorKind]>([])
            func base() -> OutOfBandRegistration { OutOfBandRegistration(config: config).appLink(uri: link) }
            for (offering, pick) in [
                (base().biometricUserVerifier(FakeBiometrics()), AuthenticatorKind.pin),
                (base().pinEnroller { _ in "4711" }, .password),
                (base().pinEnroller { _ in "4711" }, .biometric),
                (base().biometricUserVerifier(FakeBiometrics()), .devicePasscode),
            ] {
                let error = await #expect(throws: ZSMError.self) {
                    try await offering.authenticatorSelector { context in
                        seen.withLock { $0 = context.offered }
                        return pick
                    }.run()
                }
                #expect(error?.code == .userNotEnrolled, "picking \(pick)")
            }
            #expect(seen.withLock { $0 } == [.biometric])
            let none = await #expect(throws: ZSMError.self) {
                try await base().pinEnroller { _ in "4711" }.authenticatorSelector { _ in nil }.run()
            }
            #expect(none?.code == .cancelled)
            let unselected = await #expect(throws: ZSMError.self) { try await base().pinEnroller { _ in "4711" }.run() }
            #expect(unselected?.code == .invalidConfiguration)

            let registered = try await base().pinEnroller { _ in "4711" }.passwordEnroller { _ in "correct horse" }
                .authenticatorSelector { context in
                    seen.withLock { $0 = context.offered }
                    return .pin
                }.run()
            #expect(seen.withLock { $0 } == [.pin, .password])
            #expect(registered.enrollment.userVerification == "pin")
        }
    }

    @Test("biometrics unavailable: the device passcode only when the fallback is allowed")
    func passcodeFallbackWhenUnavailable() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let noFingers = FakeBiometrics(fingers: [])
            let passcode = FakePasscode()
            func registration(_ user: String) async throws -> OutOfBandRegistration {
                OutOfBandRegistration(config: config)
                    .appLink(uri: try await server.startEnrollment(app, user: user).enrollment.appLinkUri)
                    .authenticatorSelector { _ in .biometric }.biometricUserVerifier(noFingers)
                    .devicePasscodeUserVerifier(passcode)
            }

            let refused = await #expect(throws: ZSMError.self) { try await registration("carol").run() }
            #expect(refused?.code == .userNotEnrolled)
            #expect(passcode.prompts == 0)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "carol").enrolled == false)

            let fellBack = try await registration("dan").allowDevicePasscodeAsFallback(true).run()
            #expect(fellBack.authenticator == .devicePasscode)
            #expect(fellBack.enrollment.userVerification == "devicePasscode")
            #expect(passcode.prompts == 1 && noFingers.prompts == 0)
        }
    }

    @Test("a biometric mismatch is userVerificationFailed, or the passcode when allowed; a cancel never falls back")
    func passcodeFallbackOnMismatch() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let passcode = FakePasscode()
            func registration(_ user: String, _ sensor: FakeBiometrics) async throws -> OutOfBandRegistration {
                OutOfBandRegistration(config: config)
                    .appLink(uri: try await server.startEnrollment(app, user: user).enrollment.appLinkUri)
                    .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor)
                    .devicePasscodeUserVerifier(passcode)
            }

            let wrongFinger = FakeBiometrics(answer: .noMatch)
            let failed = await #expect(throws: ZSMError.self) { try await registration("erin", wrongFinger).run() }
            #expect(failed?.code == .userVerificationFailed)
            #expect(wrongFinger.prompts == 1 && passcode.prompts == 0)

            let dismissed = await #expect(throws: ZSMError.self) {
                try await registration("fay", FakeBiometrics(answer: .cancel)).allowDevicePasscodeAsFallback(true).run()
            }
            #expect(dismissed?.code == .cancelled)
            #expect(passcode.prompts == 0)

            let rescued = try await registration("gus", FakeBiometrics(answer: .noMatch))
                .allowDevicePasscodeAsFallback(true).run()
            #expect(rescued.authenticator == .devicePasscode && passcode.prompts == 1)
        }
    }

    @Test("biometric registration, bound to the set: unchanged signs in; a new finger deletes the passkey")
    func biometricSetChanged() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let sensor = FakeBiometrics()
            let started = try await server.startEnrollment(app, user: "hana")
            let result = try await OutOfBandRegistration(config: config).enrollResponse(started)
                .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor)
                .invalidateOnNewOsBiometrics(true).run()
            #expect(result.authenticator == .biometric && sensor.prompts == 1)
            let record = try String(contentsOf: storage.url.appendingPathComponent("enrollments.json"), encoding: .utf8)
            #expect(record.contains("biometricSetHash") && !record.contains("left thumb"))

            let client = UMFAClient(Self.biometricSignIn(config, sensor))
            let login = try await client.authenticate(userId: "hana")
            #expect(try await server.validate(app, user: "hana", token: login.token).status == 200)
            #expect(login.userVerification == "biometric" && sensor.prompts == 2)

            sensor.addFinger("right thumb")
            let gone = await #expect(throws: ZSMError.self) { try await client.authenticate(userId: "hana") }
            #expect(gone?.code == .keyDisappearedPermanently)
            #expect(sensor.prompts == 2, "the user is not asked for a passkey that is gone")
            #expect(!FileManager.default.fileExists(atPath: try storage.keyFile(credentialID: login.credentialId).path))
            #expect(try await client.checkEnrollment(userId: "hana").enrolled == false)
            let again = await #expect(throws: ZSMError.self) { try await client.authenticate(userId: "hana") }
            #expect(again?.code == .notEnrolled)
        }
    }

    @Test("not bound to the set (invalidateOnNewOsBiometrics false): a new finger still signs in")
    func biometricSetChangedWithoutInvalidation() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let sensor = FakeBiometrics()
            let link = try await server.startEnrollment(app, user: "ivan").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor)
                .invalidateOnNewOsBiometrics(false).run()
            let record = try String(contentsOf: storage.url.appendingPathComponent("enrollments.json"), encoding: .utf8)
            #expect(!record.contains("biometricSetHash"), "an unbound entry is written as before the field existed")

            sensor.addFinger("right thumb")
            let login = try await UMFAClient(Self.biometricSignIn(config, sensor)).authenticate(userId: "ivan")
            #expect(try await server.validate(app, user: "ivan", token: login.token).status == 200)
        }
    }

    @Test("approvals check the biometric set too: unchanged approves; changed is keyDisappearedPermanently")
    func approvalWithChangedSet() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let sensor = FakeBiometrics()
            let link = try await server.startEnrollment(app, user: "jo").enrollment.appLinkUri
            _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .biometric }.biometricUserVerifier(sensor)
                .invalidateOnNewOsBiometrics(true).run()
            let signIn = Self.biometricSignIn(config, sensor)
            func approve(_ message: String) async throws -> ApprovalResult {
                let link = try UMFAAppLink(uri: try await server.startApproval(app, user: "jo", message: message))
                let relyingParty = OutOfBandRelyingParty(link: link, config: signIn)
                return try await UMFAClient(signIn, relyingParty: relyingParty).answerApproval(userId: "jo")
            }

            #expect(try await approve("Pay 5 EUR").userId == "jo")
            sensor.addFinger("right thumb")
            let gone = await #expect(throws: ZSMError.self) { try await approve("Pay 500 EUR") }
            #expect(gone?.code == .keyDisappearedPermanently)
            #expect(try await UMFAClient(signIn).checkEnrollment(userId: "jo").enrolled == false)
        }
    }

    @Test("PIN, from the enroll response JSON, by execute(): a weak PIN is asked again; the status succeeds")
    func pinRegistration() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.setUp(server, storage)
            let started = try await server.startEnrollment(app, user: "kai")
            let asked = Mutex<[SecretEnrollmentContext]>([])
            let outcome = Mutex<(OutOfBandRegistrationResult?, ZSMError?)>((nil, nil))
            await OutOfBandRegistration(config: config).enrollResponse(json: try JSONEncoder().encode(started))
                .deviceInformation(name: "Kai's phone", pushToken: "apns-token-1")
                .authenticatorSelector { _ in .pin }
                .pinEnroller { context in
                    asked.withLock { $0.append(context) }
                    return context.lastRecoverableError == nil ? "12" : "4711"
                }
                .onSuccess { result in outcome.withLock { $0.0 = result } }
                .onError { error in outcome.withLock { $0.1 = error } }
                .execute().value

            let (result, error) = outcome.withLock { $0 }
            #expect(error == nil)
            #expect(result?.authenticator == .pin && result?.enrollment.userVerification == "pin")
            let contexts = asked.withLock { $0 }
            #expect(contexts.count == 2 && contexts.allSatisfy { $0.userId == "kai" && $0.minimumLength == 4 })
            #expect(contexts.last?.lastRecoverableError?.code == .userVerificationFailed)

            let status = try await server.transactionStatus(started.enrollment.statusToken)
            #expect(status["status"]?.stringValue == "succeeded", "\(status.text)")
            let token = try #require(status["token"]?.stringValue)
            #expect(try await server.validate(app, user: "kai", token: token).status == 200)
            let stored = try await server.credentials(app, user: "kai")
            #expect(stored.first?.objectValue?["device_name"]?.stringValue == "Kai's phone")

            var signIn = config
            signIn.userVerification = .pin { _ in "4711" }
            let login = try await UMFAClient(signIn).authenticate(userId: "kai")
            #expect(login.userVerification == "pin")
            #expect(try await server.validate(app, user: "kai", token: login.token).status == 200)
        }
    }

    @Test("execute() reports a failure to onError and not to onSuccess")
    func executeReportsErrors() async {
        let outcome = Mutex<(succeeded: Bool, error: ZSMError?)>((false, nil))
        let config = ZSMConfig(hostURL: URL(fileURLWithPath: "/"), applicationId: "none")
        await OutOfBandRegistration(config: config).authenticatorSelector { _ in .pin }
            .onSuccess { _ in outcome.withLock { $0.succeeded = true } }
            .onError { error in outcome.withLock { $0.error = error } }
            .execute().value
        #expect(outcome.withLock { $0.succeeded } == false)
        #expect(outcome.withLock { $0.error?.code } == .invalidConfiguration)
    }
}

@Suite("Device enrollment records")
struct DeviceEnrollmentRecordTests {
    @Test("an enrollments.json written before biometric binding existed still loads, as unbound")
    func oldRecordLoads() throws {
        let storage = DeviceStorage()
        defer { storage.remove() }
        try FileManager.default.createDirectory(at: storage.url, withIntermediateDirectories: true)
        let old = """
            [{"applicationId":"app","credentialId":"AQID","enrolledAt":"2025-01-02T03:04:05Z","rpId":"localhost",\
            "userId":"lea","userVerification":"biometric"}]
            """
        try Data(old.utf8).write(to: storage.url.appendingPathComponent("enrollments.json"))
        let entry = try #require(
            try DeviceEnrollments(directory: storage.url).entry(applicationId: "app", userId: "lea"))
        #expect(entry.credentialId == "AQID" && entry.userVerification == "biometric")
        #expect(entry.biometricSetHash == nil)
    }
}
