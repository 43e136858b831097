import Foundation
import Testing
import UMFA

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
}
