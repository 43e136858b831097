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
        let adminTokenHash = try await adminToken(&report)
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

    /// The stored setting that holds a generated admin token's hash.
    static let generatedAdminTokenSetting = "admin_token_hash"

    /// The admin token's hash: the configured token's (`UMFA_ADMIN_TOKEN`), else the stored
    /// generated one's, else a new token's, shown once (docs/operators/configuration.md, "The
    /// admin token").
    private func adminToken(_ report: inout StartupReport) async throws -> [UInt8] {
        let setting = Self.generatedAdminTokenSetting
        if let given = configuration.adminToken {
            guard given.count >= 16 else { throw ConfigurationError("UMFA_ADMIN_TOKEN must be at least 16 characters") }
            // A configured token retires the generated one for good (docs/operators/configuration.md,
            // `UMFA_ADMIN_TOKEN`): a start without the variable later generates a new token rather
            // than reviving the old one, which the operator may have replaced because it leaked.
            if try await store.setting(setting) != nil {
                try await store.deleteSetting(setting)
                report.retiredGeneratedAdminToken = true
            }
            return Secrets.hash(given)
        }
        if let stored = try await store.setting(setting), let hash = Base64URL.decode(stored) {
            return hash
        }
        let token = Secrets.make(prefix: "umfa_admin_")
        let stored = try await store.insertSettingIfAbsent(setting, value: Base64URL.encode(Secrets.hash(token)))
        if stored == Base64URL.encode(Secrets.hash(token)) { report.generatedAdminToken = token }
        return Base64URL.decode(stored) ?? Secrets.hash(token)
    }
}
