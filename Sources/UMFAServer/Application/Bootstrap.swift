import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// First-start work: the server secret, the admin token and the development application.
struct Bootstrap {
    let store: any UMFAStore
    let configuration: ServerConfiguration

    /// - Returns: what to show once, the admin token hash and the server secret.
    func run() async throws -> (StartupReport, [UInt8], [UInt8]) {
        var report = StartupReport(openApplications: [])
        let secretText = try await store.insertSettingIfAbsent(
            "server_secret", value: Base64URL.encode(Secrets.randomBytes(32)))
        guard let serverSecret = Base64URL.decode(secretText), serverSecret.count == 32 else {
            throw ConfigurationError("the stored server secret is damaged")
        }
        let adminTokenHash: [UInt8]
        if let given = configuration.adminToken {
            guard given.count >= 16 else { throw ConfigurationError("UMFA_ADMIN_TOKEN must be at least 16 characters") }
            adminTokenHash = Secrets.hash(given)
        } else if let stored = try await store.setting("admin_token_hash"), let hash = Base64URL.decode(stored) {
            adminTokenHash = hash
        } else {
            let token = Secrets.make(prefix: "umfa_admin_")
            let stored = try await store.insertSettingIfAbsent(
                "admin_token_hash", value: Base64URL.encode(Secrets.hash(token)))
            adminTokenHash = Base64URL.decode(stored) ?? Secrets.hash(token)
            if stored == Base64URL.encode(Secrets.hash(token)) { report.generatedAdminToken = token }
        }
        if configuration.createDefaultApplication, try await store.applications().isEmpty {
            let origin = configuration.publicOrigin ?? "http://localhost:\(configuration.port)"
            let application = ApplicationRecord(
                id: UUID(), name: "Development", rpID: "localhost", rpName: "UMFA development", origins: [origin],
                enrollmentPolicy: .open, userVerification: .preferred, attestation: .none, tokenTTLSeconds: 300,
                createdAt: configuration.now())
            let apiKey = Secrets.make(prefix: "umfa_ak_")
            try await store.insertApplication(application)
            try await DevelopmentApplication.record(application.id, in: store)
            try await store.insertAPIKey(
                hash: Secrets.hash(apiKey), applicationID: application.id, createdAt: configuration.now())
            report.defaultApplicationID = application.id
            report.defaultApplicationAPIKey = apiKey
        }
        return (report, adminTokenHash, serverSecret)
    }
}
