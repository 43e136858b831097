import Foundation
import Logging

/// What the OAuth parts of the SDK (``OAuthTokenManager``, ``FlowDriver``,
/// ``PasskeyAccountClient``) need to know about the issuer and the client.
public struct OAuthConfiguration: Sendable {
    /// A dynamic client's template (docs/contract.md §5): when the configured client is refused, the app
    /// cannot attest itself (its ``ClientAuthentication/attestation(_:)`` closure throws) or the
    /// server refuses the attestation, the SDK gets a `dcr` token with the template's own
    /// authentication, registers a client of its own (RFC 7591) and keeps it on the device.
    public struct DCRTemplate: Sendable {
        /// The template client's id (the new client's `software_id`).
        public var clientId: String
        /// How the template authenticates (its secret, usually).
        public var authentication: ClientAuthentication

        /// Creates a template.
        public init(clientId: String, authentication: ClientAuthentication) {
            self.clientId = clientId
            self.authentication = authentication
        }

        /// The template client's id, by its former name.
        @available(*, deprecated, renamed: "clientId")
        public var clientID: String {
            get { clientId }
            set { clientId = newValue }
        }

        /// Creates a template (the former argument label).
        @available(*, deprecated, renamed: "init(clientId:authentication:)")
        public init(clientID: String, authentication: ClientAuthentication) {
            self.init(clientId: clientID, authentication: authentication)
        }
    }

    /// The issuer, such as `https://mfa.example.com/oidc/<application id>`.
    public var issuer: URL
    /// The client's id (Curity's `clientId`).
    public var clientId: String
    /// Where the authorization response goes (the flow never redirects; the server checks it).
    public var redirectURI: String
    /// The scopes to ask for.
    public var scopes: [String]
    /// How the client authenticates.
    public var clientAuthentication: ClientAuthentication
    /// A template to register a client from when this one is refused or cannot attest itself.
    public var dcrTemplate: DCRTemplate?
    /// Extra headers for every request to `URL` (an app's own tracing, say).
    public var headerProvider: (@Sendable (URL) async -> [String: String])?
    /// Extra parameters for the authorization request, such as `max_age` (OpenID Connect Core §3.1.2.1).
    public var parameterProvider: (@Sendable () async -> [String: String])?
    /// Told of every token-endpoint answer, with its body and headers (Curity's
    /// `tokenEndpointResponseListener`).
    public var tokenEndpointResponseListener: (any OAuthTokenManager.TokenEndpointResponseListener)?
    /// Whether tokens are bound to a DPoP key, and which: ``BoundedTokenConfiguration`` with the
    /// SDK's P-256 key by default (Curity's `tokenBoundConfiguration`).
    public var tokenBoundConfiguration: any TokenBoundConfiguration = BoundedTokenConfiguration()
    /// Where the SDK logs; secrets are masked at every level.
    public var logger: Logger
    /// Seconds to wait for an answer.
    public var timeout: TimeInterval
    /// How requests reach the issuer: ``URLSessionTransport`` by default; a transport that
    /// presents a client certificate (RFC 8705 `tls_client_auth`, with ``ClientAuthentication/none``
    /// sending `client_id`) or pins the server's key (`UMFATLSTransport`) otherwise.
    public var transport: any HTTPTransport = URLSessionTransport()
    /// The clock of proofs and token checks (a device whose clock is off can correct it here).
    public var now: @Sendable () -> Date

    /// Creates a configuration for a public client with the default scopes and loopback redirect.
    public init(
        issuer: URL, clientId: String, redirectURI: String = "http://127.0.0.1/callback",
        scopes: [String] = ["openid", "profile", "email", "offline_access"],
        clientAuthentication: ClientAuthentication = .none
    ) {
        self.issuer = issuer
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.clientAuthentication = clientAuthentication
        self.logger = .silent
        self.timeout = 30
        self.now = { Date() }
    }

    /// The client's id, by its former name.
    @available(*, deprecated, renamed: "clientId")
    public var clientID: String {
        get { clientId }
        set { clientId = newValue }
    }

    /// Creates a configuration (the former argument label).
    @available(*, deprecated, renamed: "init(issuer:clientId:redirectURI:scopes:clientAuthentication:)")
    public init(
        issuer: URL, clientID: String, redirectURI: String = "http://127.0.0.1/callback",
        scopes: [String] = ["openid", "profile", "email", "offline_access"],
        clientAuthentication: ClientAuthentication = .none
    ) {
        self.init(
            issuer: issuer, clientId: clientID, redirectURI: redirectURI, scopes: scopes,
            clientAuthentication: clientAuthentication)
    }

    /// The issuer without a trailing slash.
    var issuerString: String {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
