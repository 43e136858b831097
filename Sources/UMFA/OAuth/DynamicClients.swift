import Crypto
import Foundation

/// The clients the SDK registered from a DCR template (docs/contract.md §5), one per issuer and
/// template, kept in `oauth-clients/` of the storage location with the secret sealed as the
/// passkeys are.
struct DynamicClients: Sendable {
    let keys: DeviceSigningKeys

    /// A registered client.
    struct Registered: Sendable {
        var clientID: String
        /// How it authenticates at the token endpoint (RFC 7591 §2).
        var method: String
        var clientSecret: String?

        /// The methods the SDK can use for a registered client (it holds no key registered for one).
        static let methods: Set<String> = ["none", "client_secret_basic", "client_secret_jwt"]

        /// How the client authenticates, by its method.
        var authentication: ClientAuthentication {
            switch (method, clientSecret) {
            case ("client_secret_basic", let secret?): .secret(secret)
            case ("client_secret_jwt", let secret?): .symmetricJWT(secret: secret)
            default: .none
            }
        }
    }

    init(config: ZSMConfig) {
        keys = DeviceSigningKeys(
            config: config, folder: "oauth-clients", sealingMaterial: Array("umfa dynamic client v1".utf8))
    }

    /// The client kept for `issuer` and `template`; the label holds its id and method, the sealed
    /// bytes its secret.
    func load(issuer: String, template: OAuthConfiguration.DCRTemplate?) throws(ZSMError) -> Registered? {
        guard let template, let (secret, label) = try keys.loadSealed(applicationId: issuer, userId: template.clientId)
        else { return nil }
        let parts = label.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw ZSMError(.keyStoreDamaged, "a kept OAuth client is damaged") }
        return Registered(
            clientID: parts[0], method: parts[1],
            clientSecret: secret.isEmpty ? nil : String(decoding: secret, as: UTF8.self))
    }

    func save(_ client: Registered, issuer: String, template: OAuthConfiguration.DCRTemplate) throws(ZSMError) {
        try keys.saveSealed(
            Array((client.clientSecret ?? "").utf8), applicationId: issuer, userId: template.clientId,
            label: client.clientID + " " + client.method)
    }
}
