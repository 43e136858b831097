import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn

@Suite("Software authenticator: scrypt cost of PIN seals")
struct SealingCostTests {
    @Test("a new PIN seal made with the defaults records scrypt N of at least 2^17")
    func defaultCost() throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let id = try PINFixture.create(authenticator, user: "hal", secret: "1470")
        let protection = try #require(try store.credential(id: id)?.protection)
        #expect(protection.secretKind == .pin)
        #expect(try #require(protection.rounds) >= 1 << 17)
        #expect(SoftwareAuthenticator.defaultScryptRounds >= 1 << 17)
    }

    @Test("a seal made at a lower N still opens, and is sealed again at the current N by that sign-in")
    func oldSealOpensAndIsUpgraded() throws {
        let store = InMemoryCredentialStore()
        let old = PINFixture.authenticator(store: store, scryptRounds: 1 << 4)
        let id = try PINFixture.create(old, user: "ida", secret: "8080")
        #expect(try store.credential(id: id)?.protection.rounds == 1 << 4)

        let current = PINFixture.authenticator(store: store, scryptRounds: 1 << 8)
        let wrong = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(current, id, secret: "8081")
        }
        #expect(wrong?.code == .userVerificationFailed)
        #expect(try store.credential(id: id)?.protection.rounds == 1 << 4)  // a wrong PIN changes no seal

        let first = try PINFixture.sign(current, id, secret: "8080")
        let upgraded = try #require(try store.credential(id: id))
        #expect(upgraded.protection.rounds == 1 << 8)
        #expect(upgraded.signCount == first.authenticatorData.signCount)
        #expect(upgraded.failedVerificationAttempts == 0)
        let second = try PINFixture.sign(current, id, secret: "8080")
        #expect(second.authenticatorData.signCount == first.authenticatorData.signCount + 1)
        // An authenticator configured lower never weakens a seal.
        try PINFixture.sign(old, id, secret: "8080")
        #expect(try store.credential(id: id)?.protection.rounds == 1 << 8)
    }

    @Test("a directory record from before per-credential counting opens, and keeps the device-wide count it had")
    func legacyRecordKeepsItsCount() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-legacy-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DirectoryCredentialStore(directory: directory)
        let authenticator = PINFixture.authenticator(store: store)
        let id = try PINFixture.create(authenticator, user: "jo", secret: "6543")
        let file = directory.appendingPathComponent("credentials/\(Hex.encode(id)).json")
        var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(record["failedVerificationAttempts"] as? Int == 0)
        record["failedVerificationAttempts"] = nil
        try JSONSerialization.data(withJSONObject: record).write(to: file)

        #expect(try store.credential(id: id)?.failedVerificationAttempts == 0)
        try PINFixture.sign(authenticator, id, secret: "6543")

        record["failedVerificationAttempts"] = nil
        try JSONSerialization.data(withJSONObject: record).write(to: file)
        try Data(#"{"failedVerificationAttempts":6}"#.utf8).write(to: directory.appendingPathComponent("state.json"))
        let wrong = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(authenticator, id, secret: "0000")
        }
        #expect(wrong?.message == "wrong pin; 1 attempts left")
    }
}
