import Foundation
import Synchronization
import Testing
import UMFA
import UMFAContract

@Suite("Enrollment policy through the SDK")
struct EnrollmentPolicyTests {
    @Test("grant: without a token provider the server refuses (403, trace id); with one it works")
    func grantPolicy() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "alice") }
            #expect(error?.code == .enrollmentNotAllowed)
            #expect(error?.httpStatus == 403)
            #expect(error?.recovery == .startOver)
            #expect(error?.traceId.flatMap(UUID.init(uuidString:)) != nil)
            #expect(
                error?.message == "This application requires an enrollment token from its backend to register a device")
            #expect(try storage.keyFiles().isEmpty)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "alice").enrolled == false)

            config.enrollmentTokenProvider = { _ in throw TestFailure("the backend is down") }
            let failing = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "alice") }
            #expect(failing?.code == .enrollmentNotAllowed)
            #expect(failing?.recovery == .retry)

            config.enrollmentTokenProvider = server.grants(app)
            let enrolled = try await UMFAClient(config).enroll(userId: "alice")
            #expect(try await server.credentials(app, user: "alice").count == 1)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "alice").credentialId == enrolled.credentialId)
        }
    }

    @Test("open: the first device enrolls freely; a second device of the same user needs an enrollment token")
    func openPolicySecondDevice() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let (phone, laptop) = (DeviceStorage(), DeviceStorage())
            defer {
                phone.remove()
                laptop.remove()
            }
            let first = try await UMFAClient(server.config(app, storage: phone)).enroll(userId: "carol")

            var laptopConfig = server.config(app, storage: laptop)
            let refused = await #expect(throws: ZSMError.self) {
                try await UMFAClient(laptopConfig).enroll(userId: "carol")
            }
            #expect(refused?.code == .enrollmentNotAllowed)
            #expect(refused?.httpStatus == 403)
            #expect(refused?.traceId != nil)
            #expect(try laptop.keyFiles().isEmpty)

            laptopConfig.enrollmentTokenProvider = server.grants(app)
            let second = try await UMFAClient(laptopConfig).enroll(userId: "carol")
            #expect(second.credentialId != first.credentialId)
            let listed = try await server.credentials(app, user: "carol").compactMap {
                $0.objectValue?["credential_id"]?.stringValue
            }
            #expect(Set(listed) == [first.credentialId, second.credentialId])

            // Each device signs in with its own passkey.
            let fromPhone = try await UMFAClient(server.config(app, storage: phone)).authenticate(userId: "carol")
            let fromLaptop = try await UMFAClient(laptopConfig).authenticate(userId: "carol")
            #expect(fromPhone.credentialId == first.credentialId)
            #expect(fromLaptop.credentialId == second.credentialId)
        }
    }
}

@Suite("Lost answers through the SDK")
struct LostAnswerTests {
    @Test("a lost registration/options answer is retried with the same enrollment token, and the enrollment succeeds")
    func lostOptionsAnswer() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            // The device talks to the server through a relay that loses the first options answer.
            let relay = try TinyListener(.relay(port: server.port, losingFirstAnswerTo: "/registration/options"))
            defer { relay.stop() }
            var config = server.config(app, storage: storage, retryCount: 1)
            config.hostURL = try #require(URL(string: "http://127.0.0.1:\(relay.port)"))
            config.origin = server.origin
            let tokens = Mutex(0)
            let grants = server.grants(app)
            config.enrollmentTokenProvider = { user in
                tokens.withLock { $0 += 1 }
                return try await grants(user)
            }

            let enrolled = try await UMFAClient(config).enroll(userId: "alice")
            #expect(relay.lost == 1, "the first options answer was lost on the way")
            #expect(
                relay.requests.map { String($0.split(separator: " ").dropFirst().first ?? "") } == [
                    APIOperation.registrationOptions.path, APIOperation.registrationOptions.path,
                    APIOperation.registrationVerify.path,
                ])
            #expect(tokens.withLock { $0 } == 1, "one enrollment token served both options requests")
            let stored = try await server.credentials(app, user: "alice")
            #expect(stored.compactMap { $0.objectValue?["credential_id"]?.stringValue } == [enrolled.credentialId])
        }
    }
}
