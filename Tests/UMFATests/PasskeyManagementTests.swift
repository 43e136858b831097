import Foundation
import Testing
import UMFAContract
import UMFAEncoding

@testable import UMFA

/// `PasskeyAccountClient`'s passkey management against a live server: the access token of a
/// sign-in (DPoP-bound to the device's key) lists, renames and removes the user's passkeys.
@Suite("SDK: passkey management with the app's access token")
struct PasskeyManagementTests {
    static let scopes = ["openid", "email", "offline_access", PasskeyAccountClient.passkeysScope]

    @Test("list, rename and remove with a DPoP-bound access token; a token without the scope is refused")
    func manage() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(
                server, storage, client: ["scope": .string(LiveServer.flowScope + " umfa:passkeys")])
            let accounts = try fixture.accounts()
            let email = "lin.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await accounts.signUp(
                profile: AccountProfile(email: email), friendlyName: "Lin's phone", scopes: Self.scopes)
            #expect(signedUp.tokens.tokenType == "DPoP")
            let token = signedUp.tokens.accessToken

            let listed = try await accounts.listPasskeys(accessToken: token)
            #expect(listed.count == 1)
            let passkey = try #require(listed.first)
            #expect(passkey.name == "Lin's phone")
            #expect(Base64URL.decode(passkey.credentialID)?.isEmpty == false)

            let renamed = try await accounts.renamePasskey(
                passkey.credentialID, to: "Lin's work phone", accessToken: token)
            #expect(renamed.name == "Lin's work phone")
            #expect(try await accounts.listPasskeys(accessToken: token).first?.name == "Lin's work phone")

            // Without the scope: 403, told apart from a refused token.
            let narrow = try await accounts.logIn(email: email, scopes: ["openid", "email"])
            await #expect(throws: ZSMError(.enrollmentNotAllowed, "")) {
                _ = try await accounts.listPasskeys(accessToken: narrow.tokens.accessToken)
            }
            await #expect(throws: ZSMError(.verificationFailed, "")) {
                _ = try await accounts.listPasskeys(accessToken: token + "x")
            }
            // An unknown passkey, and a malformed id that never leaves the device.
            await #expect(throws: ZSMError(.serverError, "")) {
                try await accounts.removePasskey(Base64URL.encode([1, 2, 3]), confirmLast: true, accessToken: token)
            }
            await #expect(throws: ZSMError(.invalidConfiguration, "")) {
                try await accounts.removePasskey("../../admin", accessToken: token)
            }

            // The last passkey: refused without confirmLast, removed with it; the token ends with it.
            await #expect(throws: ZSMError(.alreadyEnrolled, "")) {
                try await accounts.removePasskey(passkey.credentialID, accessToken: token)
            }
            try await accounts.removePasskey(passkey.credentialID, confirmLast: true, accessToken: token)
            #expect(try await server.credentials(fixture.app, user: try #require(signedUp.subject)).isEmpty)
            await #expect(throws: ZSMError(.verificationFailed, "")) {
                _ = try await accounts.listPasskeys(accessToken: token)
            }
        }
    }
}
