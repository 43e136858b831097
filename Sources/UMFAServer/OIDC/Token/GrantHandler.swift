import UMFAContract
import UMFAStorage

/// One grant type of the token endpoint (RFC 6749 §4, §6): it receives a client already
/// authenticated and a sender binding already checked, and answers tokens or an ``OAuthError``.
/// A new grant is one file, listed in ``GrantRegistry/handlerTypes`` and built in
/// ``OAuthComposition``.
protocol GrantHandler: Sendable {
    /// The `grant_type` value this handler answers.
    static var grantType: String { get }

    /// The tokens `input` earns.
    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse
}

/// What the pipeline hands a grant handler: the request, its client and its binding.
struct GrantInput: Sendable {
    let request: TokenRequest
    /// The client, authenticated by ``ClientAuthenticationChain``.
    let client: OAuthClientRecord
    /// Whether the client proved itself by a client attestation.
    let attested: Bool
    /// The DPoP key and certificate the tokens are bound to (``SenderConstraint``).
    let binding: SenderBinding

    var form: OAuthForm { request.form }
    var caller: Caller { request.caller }

    /// Refuses a client not registered for `grantType` (RFC 6749 §5.2 `unauthorized_client`).
    func requireRegistered(for grantType: String) throws {
        guard client.grantTypes.contains(grantType) else {
            throw OAuthError(code: .unauthorizedClient, "The client may not use \(grantType)")
        }
    }
}

/// The grant handlers an issuer serves, keyed by `grant_type`; discovery's
/// `grant_types_supported` and the client settings' accepted grant types are read from here.
struct GrantRegistry: Sendable {
    /// Every grant handler this version serves, in the order discovery lists them.
    static let handlerTypes: [any GrantHandler.Type] = [
        AuthorizationCodeGrant.self, RefreshTokenGrant.self, ClientCredentialsGrant.self, DeviceCodeGrant.self,
        CIBAGrant.self,
    ]
    /// The `grant_type` values served.
    static let grantTypes = handlerTypes.map { $0.grantType }

    private let handlers: [String: any GrantHandler]

    /// The registry of `handlers`, one per grant type of ``handlerTypes``.
    init(_ handlers: [any GrantHandler]) {
        self.handlers = Dictionary(
            handlers.map { (type(of: $0).grantType, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The handler of `grantType`; `unsupported_grant_type` for any other (RFC 6749 §5.2).
    func handler(for grantType: String) throws -> any GrantHandler {
        guard let handler = handlers[grantType] else {
            throw OAuthError(
                code: .unsupportedGrantType, "grant_type must be one of \(Self.grantTypes.joined(separator: ", "))")
        }
        return handler
    }
}
