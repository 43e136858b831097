import Crypto
import Foundation
import Synchronization
import Testing
import UMFAAuthenticator
import UMFAWebAuthn

/// A keystore stand-in: the key stays in memory and every derivation is counted.
final class CountingKeystore: DeviceKeyProvider {
    private let key = InMemoryDeviceKey()
    private let calls = Mutex(0)

    var derivations: Int { calls.withLock { $0 } }

    func deriveSealingKey(from material: [UInt8]) -> SymmetricKey {
        calls.withLock { $0 += 1 }
        return key.deriveSealingKey(from: material)
    }
}

@Suite("Software authenticator: device key provider")
struct DeviceKeyProviderTests {
    @Test("a custom provider seals and opens every key, and no key file is written to the directory")
    func customProviderIsUsed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-keystore-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DirectoryCredentialStore(directory: directory)
        let keystore = CountingKeystore()
        let authenticator = SoftwareAuthenticator(
            store: store, deviceKeyProvider: keystore, scryptRounds: PINFixture.fastRounds)

        let pinned = try PINFixture.create(authenticator, user: "kim", secret: "9182")
        #expect(keystore.derivations == 1)
        let plain = try authenticator.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(repeating: 1, count: 32), rpID: Fixture.rpID, user: PINFixture.user("lou"),
                algorithms: [.es256]),
            verification: .none
        ).credentialID
        #expect(keystore.derivations == 2)
        try PINFixture.sign(authenticator, pinned, secret: "9182")
        _ = try authenticator.getAssertion(
            GetAssertionRequest(
                clientDataHash: Array(repeating: 2, count: 32), rpID: Fixture.rpID, allowCredentialIDs: [plain]),
            verification: .none)
        #expect(keystore.derivations == 4)

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["credentials"])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("device.key").path))

        // Another device key (the file a copy of the directory would make) opens nothing.
        let elsewhere = SoftwareAuthenticator(
            store: store, deviceKeyProvider: try DeviceKeyFile(directory: directory),
            scryptRounds: PINFixture.fastRounds)
        let foreign = PINFixture.refusal { () throws(AuthenticatorError) in
            try PINFixture.sign(elsewhere, pinned, secret: "9182")
        }
        #expect(foreign?.code == .userVerificationFailed)
        let foreignPlain = PINFixture.refusal { () throws(AuthenticatorError) in
            try elsewhere.getAssertion(
                GetAssertionRequest(
                    clientDataHash: Array(repeating: 2, count: 32), rpID: Fixture.rpID, allowCredentialIDs: [plain]),
                verification: .none)
        }
        #expect(foreignPlain?.code == .invalidData)
    }

    @Test("the device key file is created once with mode 0600 and opens what an authenticator sealed with it")
    func deviceKeyFileIsTheDefault() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-keyfile-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DirectoryCredentialStore(directory: directory)
        let first = try DeviceKeyFile(directory: directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: first.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: first.url).count == 32)
        let id = try PINFixture.create(
            SoftwareAuthenticator(store: store, deviceKeyProvider: first, scryptRounds: PINFixture.fastRounds),
            user: "max", secret: "7777")
        let reopened = SoftwareAuthenticator(
            store: store, deviceKeyProvider: try DeviceKeyFile(directory: directory),
            scryptRounds: PINFixture.fastRounds)
        try PINFixture.sign(reopened, id, secret: "7777")
    }
}
