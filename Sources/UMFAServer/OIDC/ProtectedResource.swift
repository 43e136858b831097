import Foundation
import UMFATokens
import UMFAWebAuthn

/// An endpoint that takes an issuer's access token in the `Authorization` header (userinfo,
/// dynamic registration with a `dcr` token): `Bearer` (RFC 6750 §2.1), or `DPoP` with a proof
/// of the key a DPoP-bound token names (RFC 9449 §7); a certificate-bound token only with its
/// certificate (RFC 8705 §3). Refusals carry the challenge to send.
struct ProtectedResource: Sendable {
    let accessTokens: AccessTokens
    let dpop: DPoPCheck
    let refusals: RefusalTrail
    let issuer: OAuthIssuer
    /// The endpoint's URL, which a DPoP proof's `htu` must name.
    let url: String

    /// The schemes of RFC 6750 and RFC 9449 §7.1.
    enum Scheme: String, Sendable {
        case bearer = "Bearer"
        case dpop = "DPoP"
    }

    /// Why a request was refused and how to challenge it: no error code when it sent no token.
    struct Refusal: Error {
        let error: OAuthError?
        var scheme: Scheme = .bearer
        /// The operator's reason (``RefusalTrail``), when a token was refused.
        var reason: TokenRefusal? = nil
    }

    /// What a request presents to a protected resource: its `Authorization` and `DPoP` header
    /// values and its method, which a DPoP proof's `htm` must name. The HTTP edge reads them
    /// from the request.
    struct Presented: Sendable {
        /// The `Authorization` header value.
        let authorization: String?
        /// The `DPoP` header values (RFC 9449 §4.1).
        var dpopProofs: [String] = []
        let method: String
        /// The request's client certificate, which a certificate-bound token needs (RFC 8705 §3).
        var clientCertificate: PresentedClientCertificate? = nil
        /// The client address, for the operator's trace of a refused token.
        var clientAddress = "unknown"
        /// The request's trace id, settled when a refused token is traced.
        var traceID: @Sendable () -> String = { "-" }
    }

    /// The claims of the valid, unrevoked access token `presented` that `accepts` takes,
    /// proven with DPoP when the token is bound. A refused token is traced for the operator
    /// (``RefusalTrail``); a request without one is not.
    /// - Throws: ``Refusal`` (401 with `WWW-Authenticate`).
    func claims(of presented: Presented, accepts: (AccessTokenClaims) -> Bool = { _ in true }) async throws
        -> AccessTokenClaims
    {
        var named: String?
        do {
            return try await checkedClaims(of: presented, accepts: accepts) { named = $0.clientID }
        } catch let refusal as Refusal {
            if let reason = refusal.reason {
                refusals.token(
                    reason, at: .protectedResource, clientID: named, address: presented.clientAddress,
                    traceID: presented.traceID())
            }
            throw refusal
        }
    }

    private func checkedClaims(
        of presented: Presented, accepts: (AccessTokenClaims) -> Bool, read: (AccessTokenClaims) -> Void
    ) async throws -> AccessTokenClaims {
        guard let (scheme, token) = Self.credentials(presented.authorization) else {
            throw Refusal(error: nil)
        }
        let invalid = OAuthError(code: .invalidToken, "The access token is invalid, expired or revoked")
        guard let claims = try await accessTokens.validClaims(token) else {
            throw Refusal(error: invalid, scheme: scheme, reason: .invalid)
        }
        read(claims)
        guard accepts(claims) else { throw Refusal(error: invalid, scheme: scheme, reason: .notAccepted) }
        // RFC 9449 §7: a bound token only as `DPoP` with a proof of its key; `DPoP` only for one.
        if let bound = claims.cnf?.jkt {
            guard scheme == .dpop else {
                throw Refusal(
                    error: OAuthError(
                        code: .invalidToken, "The access token is DPoP-bound: send it as Authorization: DPoP"),
                    scheme: .dpop, reason: .wrongScheme)
            }
            do {
                let proof =
                    try await dpop
                    .verify(proofs: presented.dpopProofs, method: presented.method, url: url, accessToken: token)
                guard let proof else {
                    throw OAuthError(code: .invalidDPoPProof, "Send a DPoP proof with the DPoP-bound access token")
                }
                guard proof.thumbprint == bound else {
                    throw OAuthError(code: .invalidDPoPProof, "The DPoP proof is not of the key the token is bound to")
                }
            } catch let error as OAuthError {
                // Asking for a nonce (RFC 9449 §9) is a step of the protocol, not a refusal to trace.
                throw Refusal(
                    error: error, scheme: .dpop, reason: error.code == .useDPoPNonce ? nil : .badDPoPProof)
            }
        } else if scheme == .dpop {
            throw Refusal(
                error: OAuthError(
                    code: .invalidToken, "The access token is not DPoP-bound: send it as Authorization: Bearer"),
                scheme: .bearer, reason: .wrongScheme)
        }
        // RFC 8705 §3: a certificate-bound token only over a connection with that certificate;
        // another certificate, or none, is invalid_token (401).
        if let bound = claims.cnf?.x5tS256 {
            guard let certificate = presented.clientCertificate,
                constantTimeEqual(Array(certificate.thumbprintS256.utf8), Array(bound.utf8))
            else {
                throw Refusal(
                    error: OAuthError(
                        code: .invalidToken,
                        "The access token is bound to a TLS client certificate: present the same certificate"),
                    scheme: scheme, reason: .wrongCertificate)
            }
        }
        return claims
    }

    /// The scheme and the token of an `Authorization` header, or `nil` without one.
    static func credentials(_ header: String?) -> (Scheme, String)? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        let name = header[..<space].lowercased()
        let token = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { return nil }
        switch name {
        case "bearer": return (.bearer, token)
        case "dpop": return (.dpop, token)
        default: return nil
        }
    }
}
