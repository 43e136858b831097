import Crypto
import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFA

@Suite("Keys derived from the passkey (PRF)")
struct DeriveKeyTests {
    @Test("deriveKey gives the same 32 bytes at every call, other bytes for another salt, user or PIN state")
    func stableAndSeparated() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let client = UMFAClient(config)
            let enrolled = try await client.enroll(userId: "pia")
            _ = try await client.enroll(userId: "ole")

            let salt = Array("notes-v1".utf8)
            let first = try await client.deriveKey(salt: salt, userId: "pia")
            #expect(first.key.count == 32)
            #expect(first.credentialId == enrolled.credentialId)
            // A new client (as after an app restart) derives the same key; a login in between changes nothing.
            _ = try await client.authenticate(userId: "pia")
            #expect(try await UMFAClient(config).deriveKey(salt: salt, userId: "pia").key == first.key)
            #expect(try await client.deriveKey(salt: Array("photos-v1".utf8), userId: "pia").key != first.key)
            #expect(try await client.deriveKey(salt: salt, userId: "ole").key != first.key)

            // The key opens what it sealed: the end-to-end encryption it is for.
            let box = try AES.GCM.seal(Array("diary".utf8), using: SymmetricKey(data: first.key))
            let again = try await client.deriveKey(salt: salt, userId: "pia")
            #expect(try AES.GCM.open(box, using: SymmetricKey(data: again.key)) == Data("diary".utf8))

            let completed = await client.deriveKeyCompleted(salt: salt, userId: "pia")
            #expect(completed.error == nil)
            #expect(completed["key"] == .string(Base64URL.encode(first.key)))
            #expect(completed["credential_id"] == .string(enrolled.credentialId))
        }
    }

    @Test("deriveKey without a passkey, or with one made before PRF support, is notEnrolled")
    func notEnrolled() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let missing = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).deriveKey(salt: [1], userId: "nobody")
            }
            #expect(missing?.code == .notEnrolled)

            let enrolled = try await UMFAClient(config).enroll(userId: "rut")
            // Strip the CredRandom as a passkey stored before hmac-secret has none.
            let file = try storage.keyFile(credentialID: enrolled.credentialId)
            var fields = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect(fields["sealedCredRandom"] != nil)
            fields["sealedCredRandom"] = nil
            try JSONSerialization.data(withJSONObject: fields).write(to: file)
            let old = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).deriveKey(salt: [1], userId: "rut")
            }
            #expect(old?.code == .notEnrolled)
            #expect(old?.recovery == .startOver)
            // The passkey itself still signs in.
            _ = try await UMFAClient(config).authenticate(userId: "rut")
        }
    }
}

extension UMFAClient {
    func deriveKeyCompleted(salt: [UInt8], userId: String) async -> Completed {
        await withCheckedContinuation { done in
            deriveKey(salt: salt, userId: userId) { done.resume(returning: Completed($0, $1, $2)) }
        }
    }
}
