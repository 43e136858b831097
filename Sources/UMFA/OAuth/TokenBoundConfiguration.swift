import Foundation

/// Whether the user's tokens are bound to a DPoP key (RFC 9449), Curity's
/// `TokenBoundConfiguration`: ``BoundedTokenConfiguration`` (the default) or
/// ``UnboundedTokenConfiguration``. The SDK knows these two; another conforming type is an
/// invalid configuration.
public protocol TokenBoundConfiguration: Sendable {}

/// The kind of DPoP key a ``BoundedTokenConfiguration`` makes.
public enum CryptoKeyType: Sendable, Equatable {
    /// A software P-256 key (ES256), kept sealed in the device's storage location.
    case p256
}

/// Tokens bound to a DPoP key: every request carries a proof of it, the access token is a
/// `DPoP` token with `cnf.jkt` (RFC 9449 §6), and a public client's refresh token works only
/// with the same key.
public struct BoundedTokenConfiguration: TokenBoundConfiguration {
    /// The key type, when the SDK makes the key.
    public let keyPairType: CryptoKeyType
    /// The app's own key, when it brings one (a Secure Enclave key, say).
    public let keyProvider: (any DPoPKeyProvider)?

    /// Tokens bound to a key of `keyPairType` the SDK makes (and, with a device's storage
    /// location, keeps).
    public init(keyPairType: CryptoKeyType = .p256) {
        self.keyPairType = keyPairType
        self.keyProvider = nil
    }

    /// Tokens bound to the app's key.
    public init(keyProvider: any DPoPKeyProvider) {
        self.keyPairType = .p256
        self.keyProvider = keyProvider
    }
}

/// Tokens bound to no key: requests carry no DPoP proof and the server issues `Bearer` tokens
/// (RFC 6750). The API-driven flow binds its code to the flow's key (RFC 9449 §10), so it
/// needs a ``BoundedTokenConfiguration``; unbound tokens come from a code of an authorization
/// request made for a browser (``OAuthTokenManager/authorizationRequestURL(prompt:loginHint:scopes:)``).
public struct UnboundedTokenConfiguration: TokenBoundConfiguration {
    /// Creates the configuration.
    public init() {}
}
