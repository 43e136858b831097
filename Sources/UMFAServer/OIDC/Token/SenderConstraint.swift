import UMFAStorage
import UMFATokens

/// What the tokens of one token request are bound to: the DPoP key it proved (RFC 9449 §5) and
/// the TLS client certificate it presented (RFC 8705 §3), either, both or neither.
struct SenderBinding: Sendable {
    /// The request's DPoP proof, checked; `nil` without one.
    let proof: DPoPProof?
    /// The certificate's `x5t#S256` when the client's tokens are certificate-bound.
    let x5t: String?

    /// The DPoP key's thumbprint (`cnf.jkt`), when a proof came.
    var jkt: String? { proof?.thumbprint }
    /// `DPoP` when the access token is DPoP-bound (RFC 9449 §5), else `Bearer`.
    var tokenType: String { proof == nil ? "Bearer" : "DPoP" }
}

/// The one sender-constraint check of the token endpoint, after client authentication and
/// before any grant: the DPoP proof (method, URL as addressed, time, single use, nonce) and the
/// certificate binding, with the client's requirements of both.
struct SenderConstraint: Sendable {
    /// The issuer's DPoP checks (RFC 9449).
    let dpop: DPoPCheck

    /// The binding of `request`'s tokens for `client`.
    func bind(_ request: TokenRequest, client: OAuthClientRecord) async throws -> SenderBinding {
        // RFC 9449 §5: a proof binds the access token (and a public client's refresh token).
        let proof = try await dpop.verify(proofs: request.dpopProofs, method: "POST", url: request.url)
        if client.dpopBoundAccessTokens, proof == nil {
            throw OAuthError(
                code: .invalidDPoPProof, "This client's access tokens must be DPoP-bound: send a DPoP proof")
        }
        // RFC 8705 §3: the certificate a bound client presented, which its tokens will name.
        let x5t = try CertificateBinding.thumbprint(for: client, caller: request.caller)
        return SenderBinding(proof: proof, x5t: x5t)
    }
}
