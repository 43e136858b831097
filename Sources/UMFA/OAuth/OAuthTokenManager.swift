import Crypto
import Foundation
import Synchronization
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnModel

/// The OAuth token manager, Curity's `OAuthTokenManager`: the issuer's metadata, the flow token,
/// the authorization request and its code → tokens (``fetchAccessToken(with:dpop:)``, ``fetchAccessToken(redirectURL:dpop:)``), refresh
/// (``refreshAccessToken(with:)``), revocation and ID-token verification, for one client of one
/// issuer.
///
/// With a ``BoundedTokenConfiguration`` (the default) every request carries a DPoP proof of the
/// key (the SDK's P-256 key, kept sealed in the storage location, or the app's
/// ``DPoPKeyProvider``), so the tokens are bound to it (RFC 9449); with an
/// ``UnboundedTokenConfiguration`` no proof goes and the tokens are `Bearer` tokens. When the
/// configured client is refused or cannot attest itself and the configuration names a DCR
/// template, the manager registers a client of its own (RFC 7591) once and keeps it.
public final class OAuthTokenManager: Sendable {
    /// The configuration.
    public let configuration: OAuthConfiguration
    let session: OAuthSession
    /// Where a registered client is kept, with a device's storage location.
    let clients: DynamicClients?
    /// A registered client of a manager without a storage location.
    let memoryClient = Mutex<DynamicClients.Registered?>(nil)
    private let cachedMetadata = Mutex<AuthorizationServerMetadata?>(nil)
    /// Whether this manager registered a client already: it registers at most one, so a template
    /// whose clients the server refuses cannot make it register one per request.
    let registered = Mutex(false)
    /// The authorization requests this manager (or another of the same storage location)
    /// built and whose code is not redeemed yet.
    let pending: PendingAuthorizations

    /// A manager whose DPoP key (with ``BoundedTokenConfiguration/init(keyPairType:)``) lives in
    /// `device`'s storage location, made on first use, and whose dynamic client, when one is
    /// registered, is kept there too.
    public convenience init(configuration: OAuthConfiguration, device: ZSMConfig) throws(ZSMError) {
        let key = try Self.key(configuration.tokenBoundConfiguration) { () throws(ZSMError) in
            try DPoPKey.stored(config: device, issuer: configuration.issuerString)
        }
        self.init(
            configuration: configuration, key: key, clients: DynamicClients(config: device),
            pending: PendingAuthorizations(
                config: device, issuer: configuration.issuerString, client: configuration.clientId))
    }

    /// A manager that keeps nothing on the device (Curity's
    /// `OAuthTokenManager(oauthTokenConfiguration:)`): a P-256 key it makes, and a client it
    /// registers, last as long as it does.
    public convenience init(configuration: OAuthConfiguration) throws(ZSMError) {
        let key = try Self.key(configuration.tokenBoundConfiguration) { DPoPKey() }
        self.init(configuration: configuration, key: key, clients: nil)
    }

    /// A manager whose tokens are bound to `dpopKey`, whatever the configuration's
    /// ``OAuthConfiguration/tokenBoundConfiguration`` says; it keeps nothing on the device.
    public convenience init(configuration: OAuthConfiguration, dpopKey: any DPoPKeyProvider) {
        self.init(configuration: configuration, key: dpopKey, clients: nil)
    }

    init(
        configuration: OAuthConfiguration, key: (any DPoPKeyProvider)?, clients: DynamicClients?,
        pending: PendingAuthorizations = PendingAuthorizations()
    ) {
        self.configuration = configuration
        self.session = OAuthSession(configuration: configuration, key: key)
        self.clients = clients
        self.pending = pending
    }

    /// The DPoP key of `binding`: none when unbound, the app's provider, or the SDK's P-256 key.
    static func key(_ binding: any TokenBoundConfiguration, p256: () throws(ZSMError) -> DPoPKey)
        throws(ZSMError) -> (any DPoPKeyProvider)?
    {
        switch binding {
        case is UnboundedTokenConfiguration:
            return nil
        case let bounded as BoundedTokenConfiguration:
            if let provider = bounded.keyProvider { return provider }
            return try p256()
        default:
            throw ZSMError(
                .invalidConfiguration,
                "tokenBoundConfiguration must be a BoundedTokenConfiguration or an UnboundedTokenConfiguration")
        }
    }

    /// The DPoP key's thumbprint (`cnf.jkt` of the tokens); `nil` when tokens are unbound.
    public var dpopThumbprint: String? { session.key?.thumbprint }

    /// The issuer's metadata (OpenID Connect Discovery), fetched once.
    public func metadata() async throws(ZSMError) -> AuthorizationServerMetadata {
        if let cached = cachedMetadata.withLock({ $0 }) { return cached }
        guard let url = URL(string: configuration.issuerString + "/.well-known/openid-configuration") else {
            throw ZSMError(.invalidConfiguration, "the issuer is not a URL")
        }
        let answer = try await session.send("GET", url)
        guard answer.status == 200,
            let metadata = try? JSONDecoder().decode(AuthorizationServerMetadata.self, from: answer.data),
            metadata.issuer.utf8.elementsEqual(configuration.issuerString.utf8)
        else {
            throw ZSMError(
                .invalidConfiguration, "the issuer's discovery document is missing or names another issuer",
                httpStatus: answer.status)
        }
        // RFC 8705 §5: a client presenting a certificate uses the mutual-TLS aliases.
        let endpoints = configuration.transport.presentsClientCertificate ? metadata.withMutualTLSAliases : metadata
        cachedMetadata.withLock { $0 = endpoints }
        return endpoints
    }

    /// The flow token (docs/contract.md §6): `client_credentials` with scope `urn:umfa:api-flow`, bound
    /// to the DPoP key. A refused client, an app that cannot attest itself or an attestation the
    /// server refuses falls back to the DCR template.
    public func flowToken() async -> TokenResponse {
        await withClientFallback { client in await self.flowTokenAttempt(client) }
    }

    /// ``flowToken()``, with Curity's attestation case when the attestation failed for good.
    func flowTokenWithCause() async -> (TokenResponse, HaapiError?) {
        await withClientFallbackCause { client in await self.flowTokenAttempt(client) }
    }

    /// A code → tokens (RFC 6749 §4.1.3), Curity's `fetchAccessToken(with:dpop:)`: the code of an
    /// authorization response whose `state` was checked against a request of this client (the
    /// ``FlowDriver`` checks each ``OAuthAuthorizationResponseStep``; a browser's redirect goes
    /// to ``fetchAccessToken(redirectURL:dpop:)``), with that request's PKCE verifier (RFC 7636
    /// §4.5) and, when it asked for `openid`, the ID token verified against its `nonce`.
    ///
    /// Any manager of the same storage location (``init(configuration:device:)``, so the same
    /// persisted DPoP key) finds the request; a manager built elsewhere is given the flow's
    /// ``FlowDriver/dpop``, whose key then proves the request (the flow's code is bound to it,
    /// RFC 9449 §10). A code whose response was not checked is refused.
    /// - Parameters:
    ///   - authorizationCode: ``OAuthAuthorizationResponseProperties/code``.
    ///   - dpop: the flow's key, when this manager is not of the flow's storage location.
    public func fetchAccessToken(with authorizationCode: String, dpop: Dpop? = nil) async -> TokenResponse {
        if dpop != nil, configuration.tokenBoundConfiguration is UnboundedTokenConfiguration {
            return .error(
                ZSMError(
                    .invalidConfiguration,
                    "an UnboundedTokenConfiguration binds no token: pass no dpop, or use a BoundedTokenConfiguration"))
        }
        guard let secrets = pending.take(code: authorizationCode) ?? dpop?.pending.take(code: authorizationCode)
        else {
            return .error(
                ZSMError(
                    .invalidConfiguration,
                    "no authorization response with this code was checked for this client: a flow's code goes to a "
                        + "manager of the flow's storage location or with the flow's dpop, a browser's redirect to "
                        + "fetchAccessToken(redirectURL:)"))
        }
        return await redeem(authorizationCode, secrets, dpop: dpop).0
    }

    /// A browser's authorization response (RFC 6749 §4.1.2) → tokens: its `state` must be a
    /// request's this client made, and its `iss`, when present, the issuer (RFC 9207 §2.4);
    /// otherwise the response is refused (``ZSMError/Code/verificationFailed``) and nothing is
    /// sent. An error response (§4.1.2.1) is ``TokenResponse/errorToken(_:)``.
    public func fetchAccessToken(redirectURL: URL, dpop: Dpop? = nil) async -> TokenResponse {
        let items = URLComponents(url: redirectURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let refused = ZSMError(
            .verificationFailed, "the authorization response is not one of this client's requests", recovery: .startOver
        )
        if let issuer = value("iss"), !issuer.utf8.elementsEqual(configuration.issuerString.utf8) {
            return .error(refused)
        }
        guard let state = value("state"),
            let secrets = pending.take(state: state) ?? dpop?.pending.take(state: state)
        else { return .error(refused) }
        if let error = value("error") {
            return .errorToken(
                ErrorTokenResponse(error: error, errorDescription: value("error_description"), statusCode: 302))
        }
        guard let code = value("code") else {
            return .error(ZSMError(.serverError, "the authorization response carries no code"))
        }
        return await redeem(code, secrets, dpop: dpop).0
    }

    /// This manager's DPoP key and pending requests, for a manager built elsewhere; `nil` when
    /// tokens are unbound.
    public var dpop: Dpop? { session.key.map { Dpop(keyProvider: $0, pending: pending) } }

    /// A new access token (and a new refresh token: UMFA rotates them) for `refreshToken`,
    /// Curity's `refreshAccessToken(with:)`.
    public func refreshAccessToken(with refreshToken: String) async -> TokenResponse {
        await withCurrentClient { client in
            await self.tokenRequest(["grant_type": "refresh_token", "refresh_token": refreshToken], client: client)
        }
    }

    /// Revokes `token` (RFC 7009); a refresh token takes its whole family with it.
    public func revoke(_ token: String) async throws(ZSMError) {
        switch await revocation(token) {
        case .successfulRevocation: return
        case .errorRevocation(let refusal):
            throw ZSMError(
                .serverError, "revocation was refused: \(refusal.error)", httpStatus: refusal.statusCode,
                traceId: refusal.traceId)
        case .error(let error): throw error
        }
    }

    /// The claims of `idToken` once its signature (the issuer's JWKS) and claims check out.
    public func verifyIDToken(_ idToken: String, nonce: String?) async throws(ZSMError) -> [String: JSONValue] {
        let metadata = try await metadata()
        guard let url = URL(string: metadata.jwksURI) else {
            throw ZSMError(.invalidConfiguration, "the issuer's jwks_uri is not a URL")
        }
        let answer = try await session.send("GET", url)
        guard answer.status == 200 else {
            throw ZSMError(.serverError, "the issuer's keys could not be fetched", httpStatus: answer.status)
        }
        return try IDTokenVerifier(
            issuer: configuration.issuerString, clientID: try currentClient().id, now: configuration.now()
        ).verify(idToken, jwks: answer.data, nonce: nonce)
    }

    static let flowScope = "urn:umfa:api-flow"
}
