import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE

/// A DPoP proof (RFC 9449 §4) checked against the request it came with: every check of §4.3
/// that needs no state. What needs state (the `jti` seen before, the server's nonce) is the
/// caller's, with ``jti``, ``nonce`` and ``thumbprint``.
package struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the proof's public key: what tokens are bound to (`cnf.jkt`).
    package let thumbprint: String
    /// The proof's unique id.
    package let jti: String
    /// When the proof was made.
    package let issuedAt: Date
    /// The server nonce the proof carries, if any.
    package let nonce: String?

    /// The asymmetric algorithms UMFA accepts in proofs (discovery's `dpop_signing_alg_values_supported`).
    package static let algorithms = JWSAlgorithm.asymmetric.map(\.rawValue)

    /// How far a proof's `iat` may be from the server's clock, either way.
    package static let window: TimeInterval = HTTPProofClaims.window

    /// A proof refused; the message says which check failed.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Which check failed.
        package let message: String
        init(_ message: String) { self.message = message }
        /// The message.
        package var description: String { message }
    }

    /// Checks `proof` (the `DPoP` header) for a request of `method` to `url` (RFC 9449 §4.3).
    /// - Parameters:
    ///   - accessToken: the access token the request presents, whose hash `ath` must carry;
    ///     `nil` at the token endpoint, where `ath` is not expected.
    ///   - now: the server's clock.
    package init(_ proof: String, method: String, url: String, accessToken: String?, now: Date) throws(Failure) {
        // Step 2: one well-formed JWT.
        guard let jwt = try? SignedJWT<JWTClaims>(proof) else { throw Failure("the DPoP proof is not a JWT") }
        let (header, claims) = (jwt.header, jwt.claims)
        // Steps 4–5: typ, an asymmetric algorithm UMFA supports.
        guard header.typ == "dpop+jwt" else { throw Failure("the DPoP proof's typ must be dpop+jwt") }
        guard let alg = header.alg, Self.algorithms.contains(alg) else {
            throw Failure("the DPoP proof's alg must be one of \(Self.algorithms.joined(separator: ", "))")
        }
        // Step 7: a public key only.
        guard let jwk = header.jwk else { throw Failure("the DPoP proof has no jwk header") }
        let key: PublicJWK
        do {
            key = try PublicJWK(jwk: jwk, alg: alg)
        } catch {
            throw Failure("the DPoP proof's \(error.message)")
        }
        // Step 6: the signature, with that key.
        guard jwt.isSigned(by: key) else {
            throw Failure("the DPoP proof's signature does not verify with its jwk")
        }
        // Steps 3, 8, 9, 11: the required claims, the method, the URI, freshness.
        let bound: HTTPProofClaims
        do {
            bound = try HTTPProofClaims(claims, name: "the DPoP proof", method: method, url: url, now: now)
        } catch {
            throw Failure(error.message)
        }
        // Step 12: bound to the access token presented.
        if let accessToken {
            let expected = Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))))
            guard let ath = claims.ath else { throw Failure("the DPoP proof has no ath claim") }
            guard ath == expected else { throw Failure("the DPoP proof's ath is not the access token's hash") }
        }
        if claims.members.contains("nonce"), claims.nonce == nil {
            throw Failure("the DPoP proof's nonce must be a string")
        }
        self.thumbprint = key.thumbprint
        self.jti = bound.jti
        self.issuedAt = bound.issuedAt
        self.nonce = claims.nonce
    }
}
