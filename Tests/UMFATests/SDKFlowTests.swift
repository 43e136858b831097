import Foundation
import Testing
import UMFA
import UMFAEncoding
import UMFAWebAuthn

@Suite("SDK flow against a live server")
struct SDKFlowTests {
    @Test("async: enroll, check, authenticate, validate the token, unenroll, and then not enrolled")
    func asyncFlow() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let client = UMFAClient(config)

            let before = try await client.checkEnrollment(userId: "alice")
            #expect(before.enrolled == false)
            #expect(before.credentialId == nil)

            let enrolled = try await client.enroll(userId: "alice")
            #expect(enrolled.userId == "alice")
            #expect(enrolled.userVerification == "none")
            #expect(Base64URL.decode(enrolled.credentialId)?.count == 32)
            #expect(enrolled.traceId.flatMap(UUID.init(uuidString:)) != nil)
            let enrollmentToken = try #require(enrolled.token)
            #expect(try await server.validate(app, user: "alice", token: enrollmentToken).status == 200)

            let status = try await client.checkEnrollment(userId: "alice")
            #expect(status.enrolled)
            #expect(status.credentialId == enrolled.credentialId)
            #expect(status.enrolledAt == enrolled.enrolledAt.roundedToSeconds)

            let login = try await client.authenticate(userId: "alice")
            #expect(login.credentialId == enrolled.credentialId)
            #expect(login.userId == "alice")
            let valid = try await server.validate(app, user: "alice", token: login.token)
            #expect(valid.status == 200, "\(valid.text)")
            #expect(valid["user_id"]?.stringValue == "alice")
            let claims = try jwtClaims(login.token)
            #expect(claims["credential_id"]?.stringValue == enrolled.credentialId)
            #expect(claims["application_id"]?.stringValue == app.id)
            #expect(try await server.validate(app, user: "bob", token: login.token).status == 401)

            #expect(await client.unenroll(userId: "alice"))
            #expect(try await server.credentials(app, user: "alice").isEmpty)
            #expect(try await client.checkEnrollment(userId: "alice").enrolled == false)
            #expect(try storage.keyFiles().isEmpty)
            await #expect(throws: ZSMError(.notEnrolled, "")) { try await client.authenticate(userId: "alice") }
            #expect(await client.unenroll(userId: "alice") == false)
        }
    }

    @Test("completion handlers: the same flow, with the documented data and metadata keys")
    func completionFlow() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let client = UMFAClient(config)
            let localMetadata = ["application_id": app.id, "sdk_version": UMFAClient.versionString]

            let before = await client.checkEnrollmentCompleted(userId: "bob")
            #expect(before.error == nil)
            #expect(before.data == ["enrolled": .bool(false), "user_id": .string("bob")])
            #expect(before.metadata == localMetadata)

            let enrolled = await client.enrollCompleted(userId: "bob")
            #expect(enrolled.error == nil)
            #expect(
                Set((enrolled.data ?? [:]).keys)
                    == ["token", "user_id", "credential_id", "enrolled_at", "authenticator", "user_verification"])
            #expect(enrolled["user_id"] == .string("bob"))
            #expect(enrolled["authenticator"] == .string("software"))
            #expect(enrolled["user_verification"] == .string("none"))
            let enrolledAt = try #require(enrolled["enrolled_at"]?.string)
            #expect(ISO8601DateFormatter().date(from: enrolledAt) != nil)
            let credentialID = try #require(enrolled["credential_id"]?.string)
            #expect(Set((enrolled.metadata ?? [:]).keys) == ["trace_id", "application_id", "sdk_version"])
            #expect(enrolled.metadata?["application_id"] == app.id)
            #expect(enrolled.metadata?["sdk_version"] == UMFAClient.versionString)
            #expect(enrolled.metadata?["trace_id"].flatMap(UUID.init(uuidString:)) != nil)

            let status = await client.checkEnrollmentCompleted(userId: "bob")
            #expect(status["enrolled"] == .bool(true))
            #expect(status["credential_id"] == .string(credentialID))
            #expect(status["enrolled_at"] == .string(enrolledAt))

            let login = await client.authenticateCompleted(userId: "bob")
            #expect(login.error == nil)
            #expect(
                Set((login.data ?? [:]).keys)
                    == ["token", "user_id", "credential_id", "authenticated_at", "authenticator", "user_verification"])
            #expect(login["credential_id"] == .string(credentialID))
            #expect(login["authenticated_at"]?.string.flatMap(ISO8601DateFormatter().date(from:)) != nil)
            #expect(login.metadata?["trace_id"].flatMap(UUID.init(uuidString:)) != nil)
            #expect(login.metadata?["trace_id"] != enrolled.metadata?["trace_id"])
            let token = try #require(login["token"]?.string)
            #expect(try await server.validate(app, user: "bob", token: token).status == 200)

            #expect(await client.unenrollCompleted(userId: "bob"))
            #expect(await client.checkEnrollmentCompleted(userId: "bob")["enrolled"] == .bool(false))
            let refused = await client.authenticateCompleted(userId: "bob")
            #expect(refused.data == nil)
            #expect(refused.error?.code == .notEnrolled)
            #expect(refused.error?.recovery == .startOver)
            #expect(refused.metadata == localMetadata)
        }
    }
}

extension Date {
    /// The date as an ISO 8601 text with whole seconds would give it back.
    var roundedToSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
