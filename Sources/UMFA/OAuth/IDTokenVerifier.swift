import Foundation
import UMFAContract
import UMFAEncoding
import UMFAJOSE

/// Checks an ID token (OpenID Connect Core §3.1.3.7): the signature with the issuer's JWKS
/// (RS256, ES256 or EdDSA, the key its `kid` names), `iss`, `aud`, `azp`, `exp`, `iat` and the
/// request's `nonce`.
struct IDTokenVerifier: Sendable {
    let issuer: String
    let clientID: String
    let now: Date

    /// The verified claims.
    func verify(_ token: String, jwks: Data, nonce: String?) throws(ZSMError) -> [String: JSONValue] {
        // Any base64url spelling, as before: the issuer's tokens are read, not re-validated for
        // canonical form (that is the issuer's own check).
        guard let jwt = try? SignedJWT<JSONValue>(token, canonical: false), let alg = jwt.header.algorithm,
            JWSAlgorithm.asymmetric.contains(alg)
        else { throw Self.refused("the ID token is not a signed JWT of RS256, ES256 or EdDSA") }
        let kid = jwt.header.kid
        let candidates = JWKSet.keys(in: jwks).filter { kid == nil || $0.kid == kid }
        guard
            candidates.contains(where: { jwk in
                (try? PublicJWK(jwk: jwk, alg: alg.rawValue)).map(jwt.isSigned(by:)) == true
            })
        else { throw Self.refused("the ID token's signature does not verify with the issuer's keys") }
        guard case .object(let claims) = jwt.claims else { throw Self.refused("the ID token's claims do not read") }
        guard claims["iss"]?.stringValue.map({ $0.utf8.elementsEqual(issuer.utf8) }) == true else {
            throw Self.refused("the ID token is from another issuer")
        }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let one)?: [one]
            case .array(let many)?: many.compactMap(\.stringValue)
            default: []
            }
        guard audiences.contains(clientID) else { throw Self.refused("the ID token is for another client") }
        if let azp = claims["azp"]?.stringValue, azp != clientID {
            throw Self.refused("the ID token was issued to another party (azp)")
        }
        let time = now.timeIntervalSince1970
        guard case .number(let exp)? = claims["exp"], exp > time - 60 else {
            throw Self.refused("the ID token has expired")
        }
        guard case .number(let iat)? = claims["iat"], iat <= time + 60 else {
            throw Self.refused("the ID token has no iat, or one in the future")
        }
        guard claims["sub"]?.stringValue?.isEmpty == false else { throw Self.refused("the ID token has no sub") }
        if let nonce, claims["nonce"]?.stringValue != nonce {
            throw Self.refused("the ID token's nonce is not this request's")
        }
        return claims
    }

    private static func refused(_ message: String) -> ZSMError {
        ZSMError(.verificationFailed, message, recovery: .startOver)
    }
}
