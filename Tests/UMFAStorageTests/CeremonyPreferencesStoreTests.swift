import Foundation
import Testing
import UMFAStorage

/// Migration 12b: an application's hints, attestation formats and credential protection, and
/// what a client said of a credential (credProps.rk, prf.enabled), unknown as NULL.
@Suite("Storage: ceremony preferences and credential properties")
struct CeremonyPreferencesStoreTests {
    @Test("hints, attestation formats and credential protection round-trip and update", arguments: Engine.allCases)
    func preferences(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let plain = Records.application(name: "Plain")
            try await store.insertApplication(plain)
            #expect(try await store.application(id: plain.id)?.ceremonyPreferences == CeremonyPreferences())

            var vault = Records.application(name: "Vault")
            vault.ceremonyPreferences = CeremonyPreferences(
                hints: [.hybrid, .securityKey], attestationFormats: ["tpm", "packed"],
                credentialProtectionPolicy: .userVerificationRequired, enforceCredentialProtectionPolicy: true)
            try await store.insertApplication(vault)
            #expect(try await store.application(id: vault.id) == vault)

            vault.ceremonyPreferences = CeremonyPreferences(
                hints: [.clientDevice], credentialProtectionPolicy: .userVerificationOptionalWithCredentialIDList)
            try await store.updateApplication(vault)
            #expect(try await store.application(id: vault.id) == vault)
        }
    }

    @Test("discoverable and prf_enabled keep true, false and unknown apart", arguments: Engine.allCases)
    func credentialProperties(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            var resident = Records.credential(app.id, "alice")
            (resident.discoverable, resident.prfEnabled) = (true, true)
            var serverSide = Records.credential(app.id, "alice", createdAt: Records.time(5))
            (serverSide.discoverable, serverSide.prfEnabled) = (false, false)
            let unknown = Records.credential(app.id, "alice", createdAt: Records.time(9))
            for credential in [resident, serverSide, unknown] { try await store.insertCredential(credential) }
            let listed = try await store.credentials(applicationID: app.id, userID: "alice")
            #expect(listed.map(\.discoverable) == [true, false, nil])
            #expect(listed.map(\.prfEnabled) == [true, false, nil])
            #expect(listed == [resident, serverSide, unknown])
        }
    }
}
