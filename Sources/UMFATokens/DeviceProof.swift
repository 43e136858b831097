import Foundation
import UMFAEncoding
import UMFAJOSE

/// A device proof (docs/contract.md §7): a JWT like a DPoP proof, `typ` `umfa-device+jwt`, signed
/// with the P-256 device key the phone registered with an out-of-band enrollment, whose `sub`
/// names the credential that key belongs to. The `jti` seen before is the caller's to check.
package struct DeviceProof: Sendable, Equatable {
    /// The credential id (base64url) the proof names.
    package let credentialID: String
    /// The proof's unique id.
    package let jti: String
    /// When the proof was made.
    package let issuedAt: Date

    /// The JOSE `typ` of a device proof.
    package static let type = "umfa-device+jwt"

    /// A proof refused; the message says which check failed.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Which check failed.
        package let message: String
        init(_ message: String) { self.message = message }
        /// The message.
        package var description: String { message }
    }

    /// The credential a proof names, read before its signature is checked (to find the key).
    package static func credentialID(of proof: String) -> String? {
        guard let parts = try? CompactJWSParts(proof, canonical: true),
            let subject = (try? JSONDecoder().decode(JWTClaims.self, from: Data(parts.payload)))?.sub,
            Base64URL.decode(subject) != nil
        else { return nil }
        return subject
    }

    /// Checks `proof` for a request of `method` to `url` against the registered device key
    /// (a public JWK).
    package init(_ proof: String, deviceKey jwk: JWK, method: String, url: String, now: Date) throws(Failure) {
        guard let jwt = try? SignedJWT<JWTClaims>(proof) else { throw Failure("the device proof is not a JWT") }
        guard jwt.header.typ == Self.type else { throw Failure("the device proof's typ must be \(Self.type)") }
        guard jwt.header.algorithm == .es256 else { throw Failure("the device proof's alg must be ES256") }
        let key: PublicJWK
        do {
            key = try PublicJWK(jwk: jwk, alg: "ES256")
        } catch {
            throw Failure("the registered device key is unusable: \(error.message)")
        }
        guard jwt.isSigned(by: key) else {
            throw Failure("the device proof's signature does not verify with the device key")
        }
        guard let subject = jwt.claims.sub, !subject.isEmpty else {
            throw Failure("the device proof needs a sub, the credential id")
        }
        let bound: HTTPProofClaims
        do {
            bound = try HTTPProofClaims(jwt.claims, name: "the device proof", method: method, url: url, now: now)
        } catch {
            throw Failure(error.message)
        }
        credentialID = subject
        jti = bound.jti
        issuedAt = bound.issuedAt
    }
}
