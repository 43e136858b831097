import Foundation
import Synchronization
import Testing
import UMFAContract

@testable import UMFA

/// ReachFive's WebAuthn sign-up and login as its documentation shows them (docs/sdk-products.md,
/// ReachFive rows), in UMFA's names, against a live server.
@Suite("Compatibility: ReachFive WebAuthn sign-up and login")
struct ReachFiveCompatibilityTests {
    /// The document's scopes that UMFA's issuer knows (`full_write` is ReachFive's own).
    static let scopes = ["openid", "email", "profile", "offline_access"]

    @Test("signupWithWebAuthn then loginWithWebAuthn: profile, friendly name, scopes; success and failure callbacks")
    func signUpThenLogIn() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let accounts = try fixture.accounts()
            let email = "ren.\(UUID().uuidString.prefix(8))@example.com"
            let profile = AccountProfile(email: email, givenName: "Ren", familyName: "Ito")
            let signedUp = try await Self.result { done in
                accounts.signUp(profile: profile, friendlyName: "Ren's phone", scopes: Self.scopes, completion: done)
            }.get()
            #expect(signedUp.claims["email"]?.stringValue == email)
            #expect(signedUp.claims["family_name"]?.stringValue == "Ito")
            let subject = try #require(signedUp.subject)
            #expect(
                try await server.credentials(fixture.app, user: subject).first?.objectValue?["device_name"]?.stringValue
                    == "Ren's phone")

            let loggedIn = try await Self.result { done in
                accounts.logIn(email: email, scopes: Self.scopes, completion: done)
            }.get()
            #expect(loggedIn.subject == subject)
            #expect(loggedIn.tokens.refreshToken != nil, "offline_access was asked for")
        }
    }

    @Test("the failure's errorDescription and localizedDescription read as the document's alert does")
    func errorDescription() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let accounts = try fixture.accounts()
            let failed = await Self.result { done in
                accounts.signUp(profile: AccountProfile(email: "not an email"), completion: done)
            }
            guard case .failure(let error) = failed else {
                Issue.record("an invalid email signed up")
                return
            }
            let described = try #require(error.errorDescription)
            #expect(described == error.message && described.contains("email"))
            #expect(error.localizedDescription == described)
            #expect(error.problem?.type == .invalidInput)
        }
    }

    @Test("a mobile number as the identifier: kept with an email; alone, the server asks for an email")
    func mobileNumber() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let accounts = try fixture.accounts()
            let email = "sol.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await accounts.signUp(
                profile: AccountProfile(email: email, phoneNumber: "+33612345678"), scopes: Self.scopes)
            #expect(signedUp.subject != nil)

            let phoneOnly = await #expect(throws: FlowError.self) {
                try await accounts.signUp(profile: AccountProfile(phoneNumber: "+33698765432"))
            }
            #expect(phoneOnly?.problem?.type == .invalidInput)
            #expect(phoneOnly?.problem?.invalidFields?.map(\.name) == ["email"])
        }
    }

    /// Waits for a completion-handler call.
    static func result(
        _ start: (@escaping PasskeyAccountClient.AccountCompletion) -> Void
    ) async -> Result<AccountTokens, FlowError> {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
    }
}
