import Foundation
import UMFAEncoding

/// The DPoP key (RFC 9449) a flow ran with, Curity's `Dpop`: ``FlowDriver/dpop`` hands it out,
/// and ``OAuthTokenManager/fetchAccessToken(with:dpop:)`` proves the code's key with it (the
/// flow's code is bound to it, RFC 9449 §10) and finds the flow's authorization request through
/// it, whatever key and storage the redeeming manager has.
public struct Dpop: Sendable {
    /// The key.
    public let keyProvider: any DPoPKeyProvider
    /// The flow's pending authorization requests.
    let pending: PendingAuthorizations

    /// The key's RFC 7638 thumbprint, the `cnf.jkt` of the tokens it binds.
    public var thumbprint: String { keyProvider.thumbprint }

    /// A proof for a request of `method` to `url` (RFC 9449 §4.2), with `ath` for `accessToken`.
    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil)
        async throws(ZSMError) -> String
    {
        try await keyProvider.proof(method: method, url: url, accessToken: accessToken, nonce: nonce)
    }
}

/// A DPoP-bound access token and the key it is bound to, Curity's `DpopAccessTokenInfo`: the
/// two headers a request to a resource server carries (RFC 9449 §7.1).
public struct DpopAccessTokenInfo: Sendable {
    /// The key.
    public let dpop: Dpop
    /// `DPoP` for a bound token.
    public let tokenType: String
    /// The access token.
    public let accessToken: String

    /// Info for `accessToken` of `tokenType`, bound to `dpop`'s key.
    public init(dpop: Dpop, tokenType: String = "DPoP", accessToken: String) {
        self.dpop = dpop
        self.tokenType = tokenType
        self.accessToken = accessToken
    }

    /// `Authorization`: `DPoP <access token>`.
    public var authorizationHeaderValue: String { "\(tokenType) \(accessToken)" }

    /// `DPoP`: a proof for `method` and `url` with `ath` the token's hash.
    public func dpopHeaderValue(method: String, url: URL, nonce: String? = nil) async throws(ZSMError) -> String {
        try await dpop.proof(method: method, url: url, accessToken: accessToken, nonce: nonce)
    }
}
