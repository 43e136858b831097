import Foundation
import Testing
import UMFA
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn

@Suite("Damaged key store")
struct DamagedStoreTests {
    @Test("a damaged key file breaks only its own passkey, with a clear error, and enrolling again repairs it")
    func damagedKeyFile() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            var config = server.config(app, storage: storage)
            let alice = try await UMFAClient(config).enroll(userId: "alice")
            let bob = try await UMFAClient(config).enroll(userId: "bob")
            let aliceFile = try storage.keyFile(credentialID: alice.credentialId)
            try Data("{\"id\": \"not a credential".utf8).write(to: aliceFile)

            let error = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "alice")
            }
            #expect(error?.code == .keyStoreDamaged)
            #expect(error?.recovery == .startOver)
            #expect(
                error?.message.contains("the key file credentials/\(aliceFile.lastPathComponent) is damaged") == true)
            #expect(error?.message.contains("enroll again") == true)
            // Still enrolled as far as the device knows: the app should offer to enroll again.
            #expect(try await UMFAClient(config).checkEnrollment(userId: "alice").enrolled)

            // Bob's passkey on the same device is unaffected.
            let login = try await UMFAClient(config).authenticate(userId: "bob")
            #expect(login.credentialId == bob.credentialId)

            // Listing every credential (what changePIN needs) reports the damaged file by name.
            let store = try DirectoryCredentialStore(directory: storage.url)
            let listing = #expect(throws: AuthenticatorError.self) { try store.allCredentials() }
            #expect(listing?.code == .invalidData)
            #expect(listing?.message.contains(aliceFile.lastPathComponent) == true)
            #expect(try store.credential(id: try #require(Base64URLBytes(base64URL: bob.credentialId)).bytes) != nil)

            // Enrolling again (the server excludes the damaged passkey; it does not block) replaces it.
            config.enrollmentTokenProvider = server.grants(app)
            let again = try await UMFAClient(config).enroll(userId: "alice")
            #expect(again.credentialId != alice.credentialId)
            #expect(!FileManager.default.fileExists(atPath: aliceFile.path))
            #expect(try store.allCredentials().count == 2)
            #expect(try await UMFAClient(config).authenticate(userId: "alice").credentialId == again.credentialId)
        }
    }

    @Test("a device key of the wrong length, or another device's key, reads as keyStoreDamaged")
    func damagedDeviceKey() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            _ = try await UMFAClient(config).enroll(userId: "carol")
            let keyFile = storage.url.appendingPathComponent("device.key")
            let original = try Data(contentsOf: keyFile)
            #expect(original.count == 32)

            try original.prefix(20).write(to: keyFile)
            for operation in ["checkEnrollment", "authenticate", "enroll"] {
                let client = UMFAClient(config)
                let error = await #expect(throws: ZSMError.self, "\(operation)") {
                    switch operation {
                    case "checkEnrollment": _ = try await client.checkEnrollment(userId: "carol")
                    case "authenticate": _ = try await client.authenticate(userId: "carol")
                    default: _ = try await client.enroll(userId: "dan")
                    }
                }
                #expect(error?.code == .keyStoreDamaged)
                #expect(error?.message.contains("device.key is damaged (20 bytes, expected 32)") == true)
            }
            #expect(await UMFAClient(config).unenroll(userId: "carol") == false)

            try Data(repeating: 7, count: 32).write(to: keyFile)
            let foreign = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "carol")
            }
            #expect(foreign?.code == .keyStoreDamaged)
            #expect(foreign?.message == "a stored credential does not open with this device's key")

            try original.write(to: keyFile)
            _ = try await UMFAClient(config).authenticate(userId: "carol")
        }
    }
}
