import Foundation
import Testing
import UMFA
import UMFAAuthenticator

/// The user's answers to the authenticator's questions, fixed for a test.
struct FixedConsent: AuthenticatorConsent {
    var create = true
    var reportExcluded = true

    func allowCredentialCreation(rpID: String, user: String) -> Bool { create }
    func allowExcludedCredentialReport(rpID: String) -> Bool { reportExcluded }
}

@Suite("Consent and duplicates")
struct ConsentTests {
    @Test("a refused creation is consentRefused and leaves nothing on the device or the server")
    func refusedCreation() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let client = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: FixedConsent(create: false))
            let error = await #expect(throws: ZSMError.self) { try await client.enroll(userId: "kim") }
            #expect(error?.code == .consentRefused)
            #expect(error?.recovery == .giveUp)
            #expect(try storage.keyFiles().isEmpty)
            #expect(
                !FileManager.default.fileExists(atPath: storage.url.appendingPathComponent("enrollments.json").path))
            #expect(try await client.checkEnrollment(userId: "kim").enrolled == false)
            #expect(try await server.credentials(app, user: "kim").isEmpty)
        }
    }

    @Test("enrolling the same user twice on one device is alreadyEnrolled (the server excludes the passkey)")
    func alreadyEnrolled() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let first = try await UMFAClient(config).enroll(userId: "lee")
            let error = await #expect(throws: ZSMError.self) { try await UMFAClient(config).enroll(userId: "lee") }
            #expect(error?.code == .alreadyEnrolled)
            #expect(try storage.keyFiles() == [try storage.keyFile(credentialID: first.credentialId)])
            #expect(try await server.credentials(app, user: "lee").count == 1)
            #expect(try await UMFAClient(config).authenticate(userId: "lee").credentialId == first.credentialId)

            // A user who declines to reveal the existing passkey gets consentRefused instead.
            let shy = UMFAClient(
                config, relyingParty: UMFAHTTPRelyingParty(config: config), consent: FixedConsent(reportExcluded: false)
            )
            let declined = await #expect(throws: ZSMError.self) { try await shy.enroll(userId: "lee") }
            #expect(declined?.code == .consentRefused)
            #expect(try storage.keyFiles().count == 1)
        }
    }
}
