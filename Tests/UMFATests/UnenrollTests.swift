import Foundation
import Synchronization
import Testing

@testable import UMFA

@Suite("Unenroll")
struct UnenrollTests {
    @Test("with the server unreachable unenroll answers false and keeps the key; later it succeeds")
    func serverUnreachable() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let enrolled = try await UMFAClient(config).enroll(userId: "ivan")
            let keyFile = try storage.keyFile(credentialID: enrolled.credentialId)

            var offline = config
            offline.hostURL = try #require(URL(string: "http://localhost:\(try TinyListener.closedPort())"))
            offline.origin = server.origin
            #expect(await UMFAClient(offline).unenroll(userId: "ivan") == false)
            #expect(await UMFAClient(offline).unenrollCompleted(userId: "ivan") == false)
            #expect(FileManager.default.fileExists(atPath: keyFile.path))
            let status = try await UMFAClient(config).checkEnrollment(userId: "ivan")
            #expect(status.enrolled)
            #expect(status.credentialId == enrolled.credentialId)
            #expect(try await server.credentials(app, user: "ivan").count == 1)

            #expect(await UMFAClient(config).unenroll(userId: "ivan"))
            #expect(!FileManager.default.fileExists(atPath: keyFile.path))
            #expect(try await UMFAClient(config).checkEnrollment(userId: "ivan").enrolled == false)
            #expect(try await server.credentials(app, user: "ivan").isEmpty)
        }
    }

    @Test("when the server refuses (the passkey was removed there), unenroll answers false and keeps the key")
    func serverRefuses() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let enrolled = try await UMFAClient(config).enroll(userId: "judy")
            try await server.deleteCredential(app, user: "judy", credentialID: enrolled.credentialId)
            #expect(await UMFAClient(config).unenroll(userId: "judy") == false)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "judy").enrolled)
        }
    }

    @Test("local removal: a passkey the server deleted is removed from the device, device key included")
    func localRemovalAfterServerDeleted() async throws {
        // The server's own public URL, which device proofs (`htu`) name.
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
            let link = try await server.startEnrollment(app, user: "kurt").enrollment.appLinkUri
            let enrolled = try await OutOfBandRegistration(config: config).appLink(uri: link)
                .authenticatorSelector { _ in .pin }.pinEnroller { _ in "4711" }.run().enrollment
            var signIn = config
            signIn.userVerification = .pin { _ in "4711" }
            signIn.enrollmentTokenProvider = server.grants(app)
            let client = UMFAClient(signIn)
            #expect(try await client.pendingApprovals(userId: "kurt").isEmpty)
            try await server.deleteCredential(app, user: "kurt", credentialID: enrolled.credentialId)

            let kept = await client.unenroll(userId: "kurt", localRemoval: .afterServerConfirms)
            #expect(!kept.removedFromServer && !kept.removedFromDevice && kept.serverError != nil)
            #expect(try await client.checkEnrollment(userId: "kurt").enrolled)

            let removed = await client.unenroll(userId: "kurt", localRemoval: .evenIfServerFails)
            #expect(!removed.removedFromServer && removed.removedFromDevice)
            #expect(removed.serverError != nil)
            #expect(try storage.keyFiles().isEmpty)
            #expect(try await client.checkEnrollment(userId: "kurt").enrolled == false)
            let noDeviceKey = await #expect(throws: ZSMError.self) { try await client.pendingApprovals(userId: "kurt") }
            #expect(noDeviceKey?.code == .notEnrolled)
            // Enrolling again starts clean.
            #expect(try await UMFAClient(signIn).enroll(userId: "kurt").userVerification == "pin")
        }
    }

    @Test("local removal with the server unreachable; a cancelled PIN prompt still removes nothing")
    func localRemovalOffline() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.scryptRounds = 1 << 10
            let pad = SecretPad("4711")
            config.userVerification = .pin(pad.provider)
            let enrolled = try await UMFAClient(config).enroll(userId: "lou")
            var offline = config
            offline.hostURL = try #require(URL(string: "http://localhost:\(try TinyListener.closedPort())"))
            offline.origin = server.origin

            let completed = Mutex<UnenrollmentResult?>(nil)
            await withCheckedContinuation { done in
                UMFAClient(offline).unenroll(userId: "lou", localRemoval: .afterServerConfirms) { result in
                    completed.withLock { $0 = result }
                    done.resume()
                }
            }
            #expect(completed.withLock { $0?.serverError?.code } == .networkError)
            #expect(completed.withLock { $0?.removedFromDevice } == false)

            var cancelling = config
            cancelling.userVerification = .pin { _ in nil }
            let cancelled = await UMFAClient(cancelling).unenroll(userId: "lou", localRemoval: .evenIfServerFails)
            #expect(cancelled.serverError?.code == .cancelled && !cancelled.removedFromDevice)
            #expect(
                FileManager.default.fileExists(atPath: try storage.keyFile(credentialID: enrolled.credentialId).path))

            let removed = await UMFAClient(offline).unenroll(userId: "lou", localRemoval: .evenIfServerFails)
            #expect(removed.removedFromDevice && !removed.removedFromServer)
            #expect(removed.serverError?.code == .networkError)
            #expect(try storage.keyFiles().isEmpty)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "lou").enrolled == false)
            // The server still lists it: removing it there is the backend's job now.
            #expect(try await server.credentials(app, user: "lou").count == 1)
        }
    }
}
