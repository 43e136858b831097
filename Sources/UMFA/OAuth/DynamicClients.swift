import Crypto
import Foundation

/// The clients the SDK registered from a DCR template (DESIGN.md §5), one per issuer and
/// template, kept in `oauth-clients/` of the storage location with the secret sealed as the
/// passkeys are.
struct DynamicClients: Sendable {
    let keys: DeviceSigningKeys

    /// A registered client.
    struct Registered: Sendable {
        var clientID: String
        var clientSecret: String?

        /// A client with a secret authenticates with it; one without is public.
        var authentication: ClientAuthentication { clientSecret.map { .secret($0) } ?? .none }
    }

    init(config: ZSMConfig) {
        keys = DeviceSigningKeys(
            config: config, folder: "oauth-clients", sealingMaterial: Array("umfa dynamic client v1".utf8))
    }

    func load(issuer: String, template: OAuthConfiguration.DCRTemplate?) throws(ZSMError) -> Registered? {
        guard let template,
            let (secret, clientID) = try keys.loadSealed(applicationId: issuer, userId: template.clientID)
        else { return nil }
        return Registered(
            clientID: clientID, clientSecret: secret.isEmpty ? nil : String(decoding: secret, as: UTF8.self))
    }

    func save(_ client: Registered, issuer: String, template: OAuthConfiguration.DCRTemplate) throws(ZSMError) {
        try keys.saveSealed(
            Array((client.clientSecret ?? "").utf8), applicationId: issuer, userId: template.clientID,
            label: client.clientID)
    }
}
