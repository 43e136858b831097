import Foundation
import Hummingbird
import UMFATokens

/// An endpoint that takes an issuer's access token in the `Authorization` header (userinfo,
/// dynamic registration with a `dcr` token): `Bearer` (RFC 6750 §2.1), or `DPoP` with a proof
/// of the key a DPoP-bound token names (RFC 9449 §7). Refusals carry the challenge to send.
struct ProtectedResource: Sendable {
    let services: ServerServices
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
    }

    /// The claims of the valid, unrevoked access token of `request` that `accepts` takes,
    /// proven with DPoP when the token is bound.
    /// - Throws: ``Refusal`` (401 with `WWW-Authenticate`).
    func claims(of request: Request, accepts: (AccessTokenClaims) -> Bool = { _ in true }) async throws
        -> AccessTokenClaims
    {
        guard let (scheme, token) = Self.credentials(request.headers[.authorization]) else {
            throw Refusal(error: nil)
        }
        guard let claims = try await AccessTokens(services: services, issuer: issuer).validClaims(token),
            accepts(claims)
        else {
            throw Refusal(
                error: OAuthError(code: .invalidToken, "The access token is invalid, expired or revoked"),
                scheme: scheme)
        }
        // RFC 9449 §7: a bound token only as `DPoP` with a proof of its key; `DPoP` only for one.
        if let bound = claims.cnf?.jkt {
            guard scheme == .dpop else {
                throw Refusal(
                    error: OAuthError(
                        code: .invalidToken, "The access token is DPoP-bound: send it as Authorization: DPoP"),
                    scheme: .dpop)
            }
            do {
                let proof = try await DPoPCheck(services: services, issuer: issuer)
                    .verify(request.headers, method: request.method.rawValue, url: url, accessToken: token)
                guard let proof else {
                    throw OAuthError(code: .invalidDPoPProof, "Send a DPoP proof with the DPoP-bound access token")
                }
                guard proof.thumbprint == bound else {
                    throw OAuthError(code: .invalidDPoPProof, "The DPoP proof is not of the key the token is bound to")
                }
            } catch let error as OAuthError {
                throw Refusal(error: error, scheme: .dpop)
            }
        } else if scheme == .dpop {
            throw Refusal(
                error: OAuthError(
                    code: .invalidToken, "The access token is not DPoP-bound: send it as Authorization: Bearer"),
                scheme: .bearer)
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

    /// 401 with the challenge of RFC 6750 §3 or RFC 9449 §7.1 (with the algorithms a proof may
    /// use); without an error code when no token was sent; a `DPoP-Nonce` when one is needed.
    static func challenge(_ refusal: Refusal, traceID: String, services: ServerServices) -> Response {
        let error =
            refusal.error
            ?? OAuthError(
                code: .invalidToken, "Send the access token: Authorization: \(refusal.scheme.rawValue) <token>")
        var response = ErrorMap.oauthResponse(for: error, traceID: traceID, logger: services.logger)
        response.status = .unauthorized
        var challenge = #"\#(refusal.scheme.rawValue) realm="umfa""#
        if let code = refusal.error?.code { challenge += #", error="\#(code.rawValue)""# }
        if refusal.scheme == .dpop { challenge += #", algs="\#(DPoPProof.algorithms.joined(separator: " "))""# }
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
