import Foundation
import Testing
import UMFAStorage

/// Migration 2: an application's attestation acceptance and a credential's authenticator name.
@Suite("Storage: attestation policy and authenticator names")
struct AttestationColumnStoreTests {
    @Test(
        "attestation_policy and the AAGUID lists round-trip, an absent allow list stays absent",
        arguments: Engine.allCases)
    func applicationPolicy(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let plain = Records.application(name: "Plain")
            try await store.insertApplication(plain)
            let stored = try #require(try await store.application(id: plain.id))
            #expect(stored.attestationPolicy == .any && stored.aaguidAllow == nil && stored.aaguidDeny.isEmpty)

            var strict = Records.application(name: "Bank")
            strict.attestationPolicy = .trusted
            strict.aaguidAllow = ["cb69481e-8ff7-4039-93ec-0a2729a154a8", "ee882879-721c-4913-9775-3dfcce97072a"]
            strict.aaguidDeny = ["00000000-0000-0000-0000-0000000000aa"]
            try await store.insertApplication(strict)
            #expect(try await store.application(id: strict.id) == strict)

            strict.attestationPolicy = .selfOrTrusted
            strict.aaguidAllow = nil
            strict.aaguidDeny = []
            try await store.updateApplication(strict)
            #expect(try await store.application(id: strict.id) == strict)
        }
    }

    @Test("a credential keeps the authenticator name from metadata, or none", arguments: Engine.allCases)
    func authenticatorName(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            var named = Records.credential(app.id, "alice")
            named.authenticatorName = "YubiKey 5 Series with NFC"
            let unnamed = Records.credential(app.id, "alice", createdAt: Records.time(5))
            try await store.insertCredential(named)
            try await store.insertCredential(unnamed)
            let listed = try await store.credentials(applicationID: app.id, userID: "alice")
            #expect(listed.map(\.authenticatorName) == ["YubiKey 5 Series with NFC", nil])
            #expect(try await store.credential(applicationID: app.id, credentialID: named.credentialID) == named)
        }
    }
}
