import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage

@testable import UMFAServer

/// ``AdminService`` built from its ports alone (the store, the token keys, webhooks, sign-ins,
/// recovery codes, the audit log) over a SQLite file: applications and their API keys as the admin
/// API changes them (docs/contract.md §3). The admin token is checked before this feature runs
/// (``AdminAuthorization``); here only what the feature decides. No server.
@Suite("Admin service from its ports: applications, settings validation, API keys")
struct AdminServiceFeatureTests {
    static func admin(_ ports: FeaturePorts) -> AdminService {
        AdminService(
            store: ports.store, tokens: ports.tokens, webhooks: ports.webhooks, signIns: ports.signIns,
            recoveryCodes: RecoveryCodes(store: ports.store, audit: ports.audit, now: ports.now),
            accounts: AccountDeletion(store: ports.store, audit: ports.audit, backchannel: ports.backchannel),
            audit: ports.audit, now: ports.now)
    }

    /// The application an API key opens for the API-key routes, or the refusal.
    static func opens(_ key: String, _ id: String, _ ports: FeaturePorts) async throws -> ApplicationRecord {
        try await ports.apiKeys.application(for: ports.caller(bearer: key), applicationID: id)
    }

    @Test("a new application's API key is shown once, stored as its hash, opens that application, and is audited")
    func create() async throws {
        try await FeaturePorts.with { ports in
            let admin = Self.admin(ports)
            let created = try await admin.create(
                CreateApplicationRequest(name: "Bakery", rpID: "bakery.test", origins: ["https://bakery.test"]),
                caller: ports.caller)
            let key = try #require(created.apiKey)
            #expect(key.hasPrefix("umfa_ak_"))
            #expect(created.enrollmentPolicy == "grant" && created.rpID == "bakery.test")
            let id = try #require(UUID(uuidString: created.applicationID))
            #expect(try await Self.opens(key, created.applicationID, ports).id == id)
            // Shown once: reading the application again never shows a key.
            #expect(try await admin.show(id: created.applicationID, caller: ports.caller).apiKey == nil)
            let keyID = APIKeyRecord.keyID(forHash: Secrets.hash(key))
            #expect(try await ports.store.apiKeys(applicationID: id).map(\.keyID) == [keyID])

            let made = try await ports.events(.applicationCreated)
            #expect(made.map(\.applicationID) == [id] && made.first?.details["rp_id"] == .string("bakery.test"))
            let keyEvents = try await ports.events(.apiKeyCreated)
            #expect(keyEvents.map(\.applicationID) == [id] && keyEvents.first?.details["key_id"] == .string(keyID))
            // The key appears in no audit event.
            #expect(!keyEvents.contains { "\($0.details)".contains(key) })
        }
    }

    @Test("settings with one invalid origin are refused whole: nothing stored changes and nothing is audited")
    func invalidOriginRefused() async throws {
        try await FeaturePorts.with { ports in
            let admin = Self.admin(ports)
            let id = ports.application.id.uuidString
            var settings = ApplicationSettingsRequest()
            settings.name = "Renamed"
            settings.origins = ["https://app.example.com", "javascript:alert(1)"]
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await admin.update(id: id, settings, caller: ports.caller)
            }
            #expect(refused?.code == .invalidRequest)
            #expect(try await ports.store.application(id: ports.application.id) == ports.application)
            #expect(try await ports.events(.applicationUpdated).isEmpty)

            // The same change with valid origins is stored and audited by setting name.
            settings.origins = ["https://app.example.com", "https://www.example.com"]
            let updated = try await admin.update(id: id, settings, caller: ports.caller)
            #expect(updated.name == "Renamed" && updated.origins == settings.origins)
            #expect(try await ports.store.application(id: ports.application.id)?.origins == settings.origins)
            #expect(
                try await ports.events(.applicationUpdated).first?.details["settings"]
                    == .array([.string("name"), .string("origins")]))
        }
    }

    @Test("a deleted API key stops opening the application at once; the other key keeps working")
    func deleteAPIKey() async throws {
        try await FeaturePorts.with { ports in
            let admin = Self.admin(ports)
            let id = ports.application.id.uuidString
            let first = try await admin.addAPIKey(id: id, caller: ports.caller)
            let second = try await admin.addAPIKey(id: id, caller: ports.caller)
            // Both open it (and are remembered by the validation cache).
            #expect(try await Self.opens(first.apiKey, id, ports).id == ports.application.id)
            #expect(try await Self.opens(second.apiKey, id, ports).id == ports.application.id)

            _ = try await admin.deleteAPIKey(id: id, keyID: first.keyID, caller: ports.caller)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.opens(first.apiKey, id, ports)
            }
            #expect(refused?.code == .unauthenticated)
            #expect(try await Self.opens(second.apiKey, id, ports).id == ports.application.id)
            #expect(try await ports.events(.apiKeyRevoked).first?.details["key_id"] == .string(first.keyID))
            #expect(
                try await admin.listAPIKeys(id: id, caller: ports.caller).apiKeys.map(\.keyID) == [second.keyID])

            let again = await #expect(throws: ServiceError.self) {
                _ = try await admin.deleteAPIKey(id: id, keyID: first.keyID, caller: ports.caller)
            }
            #expect(again?.code == .notFound)
            #expect(try await ports.events(.apiKeyRevoked).count == 1)
        }
    }

    @Test("an application with an invalid RP ID or origin is not created, and no key exists for it")
    func invalidApplicationRefused() async throws {
        try await FeaturePorts.with { (ports: FeaturePorts) async throws in
            let admin = Self.admin(ports)
            for request in [
                CreateApplicationRequest(name: "Bad", rpID: "Example..COM", origins: ["https://example.com"]),
                CreateApplicationRequest(name: "Bad", rpID: "bad.test", origins: ["javascript:alert(1)"]),
                CreateApplicationRequest(name: "Bad", rpID: "bad.test", origins: []),
            ] {
                let refused = await #expect(throws: ServiceError.self) {
                    _ = try await admin.create(request, caller: ports.caller)
                }
                #expect(refused?.code == .invalidRequest)
            }
            #expect(try await ports.store.applications().map(\.id) == [ports.application.id])
            #expect(try await ports.events(.applicationCreated).isEmpty)
            #expect(try await ports.events(.apiKeyCreated).isEmpty)
        }
    }
}
