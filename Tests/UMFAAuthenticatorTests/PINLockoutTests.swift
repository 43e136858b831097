import Foundation
import Testing
import UMFAAuthenticator
import UMFAWebAuthn

@Suite("Software authenticator: attempt counter per credential")
struct PINLockoutTests {
    @Test("a right PIN for credential A resets nothing of B: wrong PINs on B between right ones on A lock B")
    func alternatingDoesNotResetAnotherCredential() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        let victim = try PINFixture.create(authenticator, user: "victim", secret: "4711")
        // The thief's own credential, with a PIN the thief knows.
        let own = try PINFixture.create(authenticator, user: "thief", secret: "1234")

        for attempt in 1...8 {
            let error = PINFixture.refusal { () throws(AuthenticatorError) in
                try PINFixture.sign(authenticator, victim, secret: String(format: "%04d", attempt))
            }
            #expect(error?.code == (attempt < 8 ? .userVerificationFailed : .lockedOut), "attempt \(attempt)")
            if attempt < 8 { #expect(error?.message == "wrong pin; \(8 - attempt) attempts left") }
            try PINFixture.sign(authenticator, own, secret: "1234")
        }
        #expect(try store.credential(id: victim)?.failedVerificationAttempts == 8)
        let rightPIN = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(authenticator, victim, secret: "4711")
        }
        #expect(rightPIN?.code == .lockedOut)
        // The thief's credential is unaffected either way.
        try PINFixture.sign(authenticator, own, secret: "1234")
        #expect(try store.credential(id: own)?.failedVerificationAttempts == 0)
    }

    @Test("only a right PIN for the same credential resets its count; creating a credential resets nothing")
    func onlyOwnRightSecretResets() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        let first = try PINFixture.create(authenticator, user: "ann", secret: "2468")
        for _ in 1...3 {
            _ = PINFixture.refusal { () throws(AuthenticatorError) in
                try PINFixture.sign(authenticator, first, secret: "0000")
            }
        }
        _ = try PINFixture.create(authenticator, user: "bea", secret: "1357")
        let afterCreate = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(authenticator, first, secret: "0000")
        }
        #expect(afterCreate?.message == "wrong pin; 4 attempts left")

        try PINFixture.sign(authenticator, first, secret: "2468")
        #expect(try store.credential(id: first)?.failedVerificationAttempts == 0)
        let afterRight = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(authenticator, first, secret: "0000")
        }
        #expect(afterRight?.message == "wrong pin; 7 attempts left")
    }

    @Test("a wrong current PIN in changeSecret counts; a locked credential is erased when one is created again")
    func changeSecretCountsAndLockedIsErased() throws {
        let store = InMemoryCredentialStore()
        let authenticator = PINFixture.authenticator(store: store)
        let locked = try PINFixture.create(authenticator, user: "cy", secret: "8642")
        for _ in 1...7 {
            _ = PINFixture.refusal { () throws(AuthenticatorError) in
                try PINFixture.sign(authenticator, locked, secret: "0000")
            }
        }
        let change = PINFixture.refusal { () throws(AuthenticatorError) in
            try authenticator.changeSecret(.pin, from: "1111", to: "5555")
        }
        #expect(change?.code == .lockedOut)
        #expect(try store.credential(id: locked)?.failedVerificationAttempts == 8)

        let fresh = try PINFixture.create(authenticator, user: "cy", secret: "9753")
        #expect(try store.credential(id: locked) == nil)
        try PINFixture.sign(authenticator, fresh, secret: "9753")
    }
}
