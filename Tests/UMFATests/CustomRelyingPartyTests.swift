import Foundation
import Testing
import UMFA
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("A custom RelyingParty")
struct CustomRelyingPartyTests {
    @Test("UMFAClient(_:relyingParty:) performs every ceremony through the app's own relying party")
    func everyCeremonyGoesThroughIt() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let recorder = RecordingRelyingParty(UMFAHTTPRelyingParty(config: config))
            let client = UMFAClient(config, relyingParty: recorder)
            #expect(client.relyingParty is RecordingRelyingParty)

            _ = try await client.checkEnrollment(userId: "sam")
            #expect(recorder.calls.isEmpty)
            let enrolled = try await client.enroll(userId: "sam")
            #expect(recorder.calls == ["beginRegistration", "finishRegistration"])
            let login = await client.authenticateCompleted(userId: "sam")
            #expect(login["credential_id"] == .string(enrolled.credentialId))
            #expect(recorder.calls.suffix(2) == ["beginAuthentication", "finishAuthentication"])
            #expect(await client.unenroll(userId: "sam"))
            #expect(
                recorder.calls == [
                    "beginRegistration", "finishRegistration", "beginAuthentication", "finishAuthentication",
                    "beginAuthentication", "unenroll",
                ])
            #expect(recorder.signCounts == [1, 2])
            #expect(try await server.credentials(app, user: "sam").isEmpty)
        }
    }

    @Test("a relying party that answers without a login token makes authenticate fail, not return an empty token")
    func missingToken() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            _ = try await UMFAClient(config).enroll(userId: "tess")
            let tokenless = TokenlessRelyingParty(next: UMFAHTTPRelyingParty(config: config))
            let error = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config, relyingParty: tokenless).authenticate(userId: "tess")
            }
            #expect(error?.code == .serverError)
            #expect(error?.traceId != nil)
        }
    }
}

/// Forwards to another relying party but drops the login token from authentication outcomes.
struct TokenlessRelyingParty: RelyingParty {
    let next: any RelyingParty

    func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        try await next.beginRegistration(userId: userId, displayName: displayName, enrollmentToken: enrollmentToken)
    }

    func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        try await next.finishRegistration(userId: userId, credential: credential, deviceName: deviceName)
    }

    func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        try await next.beginAuthentication(userId: userId)
    }

    func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        let outcome = try await next.finishAuthentication(userId: userId, credential: credential)
        return CeremonyOutcome(
            userId: outcome.userId, credentialId: outcome.credentialId, token: nil, traceId: outcome.traceId)
    }

    func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome {
        try await next.unenroll(userId: userId, credential: credential)
    }
}
