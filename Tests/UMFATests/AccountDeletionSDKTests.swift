import Foundation
import Testing
import UMFAContract
import UMFAEncoding

@testable import UMFA

/// Deleting the account from the SDK against a live server (docs/contract.md §8): with the app's
/// DPoP-bound access token (`PasskeyAccountClient`), and with the device's passkey
/// (`UMFAClient`), which then forgets it.
@Suite("SDK: deleting the account")
struct AccountDeletionSDKTests {
    /// The status of the user's credential list for the backend: 404 once the user is gone.
    static func userStatus(_ server: LiveServer, _ app: TestApplication, _ user: String) async throws -> Int {
        try await server.send(
            .get, APIOperation.listUserCredentials.path(["user_id": user]) + "?application_id=\(app.id)",
            bearer: app.apiKey
        ).status
    }

    @Test("PasskeyAccountClient deletes with an access token granted umfa:account; the token then ends")
    func withAnAccessToken() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(
                server, storage, client: ["scope": .string(LiveServer.flowScope + " umfa:passkeys umfa:account")])
            let accounts = try fixture.accounts()
            let email = "ida.\(UUID().uuidString.prefix(8))@example.com"
            let scopes = ["openid", "email", PasskeyAccountClient.accountScope, PasskeyAccountClient.passkeysScope]
            let signedUp = try await accounts.signUp(profile: AccountProfile(email: email), scopes: scopes)
            let user = try #require(signedUp.subject)
            #expect(try await server.credentials(fixture.app, user: user).count == 1)

            // A token without the scope is refused, and nothing is deleted.
            let narrow = try await accounts.logIn(email: email, scopes: ["openid", "email"])
            await #expect(throws: ZSMError(.enrollmentNotAllowed, "")) {
                try await accounts.deleteAccount(accessToken: narrow.tokens.accessToken)
            }
            #expect(try await server.credentials(fixture.app, user: user).count == 1)

            try await accounts.deleteAccount(accessToken: signedUp.tokens.accessToken)
            #expect(try await Self.userStatus(server, fixture.app, user) == 404)
            await #expect(throws: ZSMError(.verificationFailed, "")) {
                _ = try await accounts.listPasskeys(accessToken: signedUp.tokens.accessToken)
            }
        }
    }

    @Test("UMFAClient signs in with the device's passkey, deletes the account, then forgets the passkey")
    func withTheDevicePasskey() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            config.enrollmentTokenProvider = server.grants(app)
            let client = UMFAClient(config)
            _ = try await client.enroll(userId: "uma")
            let login = try await client.authenticate(userId: "uma")

            let deleted: Result<Void, ZSMError> = await withCheckedContinuation { continuation in
                client.deleteAccount(userId: "uma") { continuation.resume(returning: $0) }
            }
            #expect(throws: Never.self) { try deleted.get() }
            #expect(try await server.validate(app, user: "uma", token: login.token).status == 401)
            #expect(try await Self.userStatus(server, app, "uma") == 404)
            #expect(try await client.checkEnrollment(userId: "uma").enrolled == false)
            let again = await #expect(throws: ZSMError.self) { try await client.deleteAccount(userId: "uma") }
            #expect(again?.code == .notEnrolled)
        }
    }
}
