import Foundation
import Testing
import UMFAAuthenticator
import UMFAWebAuthn

@Suite("Software authenticator: shortest PIN and password")
struct SecretPolicyTests {
    static let weakPINs = ["", "1", "123", "12a4", "abcd", "12 34", "١٢٣٤", "１２３４"]

    @Test("a PIN shorter than 4 digits, or with anything but 0-9, is refused at creation and nothing is stored")
    func weakPINRefusedAtCreation() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        for pin in Self.weakPINs {
            let error = PINFixture.refusal { () throws(AuthenticatorError) in
                try authenticator.makeCredential(
                    MakeCredentialRequest(
                        clientDataHash: Array(repeating: 1, count: 32), rpID: Fixture.rpID,
                        user: PINFixture.user("dora"), algorithms: [.es256]),
                    verification: .secret(.pin, pin))
            }
            #expect(error?.code == .weakSecret, "PIN \(pin.debugDescription)")
            #expect(error?.message == "a PIN must be at least 4 digits (0-9), and digits only")
        }
        #expect(store.allCredentials().isEmpty)
        _ = try PINFixture.create(authenticator, user: "dora", secret: "0000")
        #expect(store.allCredentials().count == 1)
    }

    @Test("a password of 7 characters is refused, 8 are accepted")
    func shortPasswordRefused() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        for password in ["", "a", "1234567", "pass wo", "éééé123"] {
            let error = PINFixture.refusal { () throws(AuthenticatorError) in
                try PINFixture.create(authenticator, user: "eli", .password, secret: password)
            }
            #expect(error?.code == .weakSecret, "password of \(password.count) characters")
            #expect(error?.message == "a password must be at least 8 characters")
        }
        #expect(store.allCredentials().isEmpty)
        let id = try PINFixture.create(authenticator, user: "eli", .password, secret: "pass wor")
        try PINFixture.sign(authenticator, id, .password, secret: "pass wor")
    }

    @Test("a weak new PIN or password is refused at change: the old one keeps working and no attempt is counted")
    func weakSecretRefusedAtChange() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        let pinned = try PINFixture.create(authenticator, user: "fox", secret: "2580")
        for pin in Self.weakPINs {
            let error = PINFixture.refusal { () throws(AuthenticatorError) in
                try authenticator.changeSecret(.pin, from: "2580", to: pin)
            }
            #expect(error?.code == .weakSecret, "PIN \(pin.debugDescription)")
        }
        let password = try PINFixture.create(authenticator, user: "gil", .password, secret: "long enough")
        let shortPassword = PINFixture.refusal { () throws(AuthenticatorError) in
            try authenticator.changeSecret(.password, from: "long enough", to: "1234567")
        }
        #expect(shortPassword?.code == .weakSecret)
        #expect(try store.credential(id: pinned)?.failedVerificationAttempts == 0)
        try PINFixture.sign(authenticator, pinned, secret: "2580")
        try PINFixture.sign(authenticator, password, .password, secret: "long enough")

        #expect(try authenticator.changeSecret(.pin, from: "2580", to: "314159") == 1)
        try PINFixture.sign(authenticator, pinned, secret: "314159")
    }
}
