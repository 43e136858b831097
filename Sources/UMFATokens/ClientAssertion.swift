import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE

/// A client's signed JWT authenticating it at the token, introspection and revocation endpoints
/// (RFC 7523 §2.2 and §3, `private_key_jwt` of OpenID Connect Core §9): the checks that need
/// only the token, the client's registered keys and the clock. The `jti` seen before is the
/// caller's (store-backed, across instances).
package struct ClientAssertion: Sendable, Equatable {
    /// `client_assertion_type` (RFC 7523 §2.2).
    package static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How far ahead `exp` may be. RFC 7523 sets no bound; an hour is what client libraries
    /// use by default (authlib), and every `jti` is kept until its `exp`, so a longer-lived
    /// assertion still works once only.
    package static let longestLifetime: TimeInterval = 3600
    /// Clock difference tolerated for `iat` and `nbf`.
    package static let skew: TimeInterval = 60

    /// The client (`iss` = `sub`).
    package let clientID: String
    /// The assertion's unique id.
    package let jti: String
    /// When it expires.
    package let expiresAt: Date

    /// An assertion refused; the message says which check failed.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Which check failed.
        package let message: String
        init(_ message: String) { self.message = message }
        /// The message.
        package var description: String { message }
    }

    /// The `iss` of `assertion` without checking anything: which client's keys to check it with.
    package static func claimedClient(_ assertion: String) -> String? {
        guard let parts = try? CompactJWSParts(assertion, canonical: true) else { return nil }
        return (try? JSONDecoder().decode(JWTClaims.self, from: Data(parts.payload)))?.iss
    }

    /// What checks the signature: the client's registered public keys (`private_key_jwt`), or
    /// its secret (`client_secret_jwt`, HMAC).
    package enum Verification: Sendable {
        /// A JWK Set, JSON: RS256, ES256 or EdDSA.
        case jwks(String)
        /// The client secret: HS256, HS384 or HS512.
        case secret([UInt8])
    }

    /// The HMAC algorithms `client_secret_jwt` takes.
    package static let hmacAlgorithms = JWSAlgorithm.hmac.map(\.rawValue)

    /// Checks `assertion` for `clientID` with its registered `jwks` (a JWK Set, JSON).
    /// - Parameter audiences: what `aud` may name (the token endpoint, the issuer).
    package init(_ assertion: String, clientID: String, jwks: String, audiences: [String], now: Date) throws(Failure) {
        try self.init(assertion, clientID: clientID, verification: .jwks(jwks), audiences: audiences, now: now)
    }

    /// Checks `assertion` for `clientID`, its signature by `verification`.
    package init(
        _ assertion: String, clientID: String, verification: Verification, audiences: [String], now: Date
    ) throws(Failure) {
        guard let jwt = try? SignedJWT<JWTClaims>(assertion) else {
            throw Failure("the client assertion is not a JWT")
        }
        guard !jwt.header.members.contains("crit") else {
            throw Failure("the client assertion names critical header parameters")
        }
        // Signed with the same keys, a request object (RFC 9101) must never pass for a client
        // assertion: it travels through the browser. It is typed, or it holds response_type.
        guard jwt.header.typ?.lowercased() != RequestObject.type,
            let members = try? JSONDecoder().decode([String: JSONValue].self, from: Data(jwt.parts.payload)),
            members["response_type"] == nil
        else {
            throw Failure("a request object is not a client assertion")
        }
        switch verification {
        case .jwks(let jwks):
            try Self.checkSignature(jwt, jwks: jwks)
        case .secret(let secret):
            // The algorithm the client's method implies, never the header's choice (RFC 8725 §3.1).
            guard let alg = jwt.header.algorithm, JWSAlgorithm.hmac.contains(alg) else {
                throw Failure(
                    "the client assertion's alg must be one of \(Self.hmacAlgorithms.joined(separator: ", "))")
            }
            guard jwt.isSigned(by: .hmac(alg, SymmetricKey(data: secret))) else {
                throw Failure("the client assertion's signature does not verify with the client's secret")
            }
        }
        try self.init(checking: jwt.claims, clientID: clientID, audiences: audiences, now: now)
    }

    /// The signature by one of the client's registered public keys.
    private static func checkSignature(_ jwt: SignedJWT<JWTClaims>, jwks: String) throws(Failure) {
        try checkSignature(jwt, jwks: jwks, of: "client assertion")
    }

    /// The signature of `jwt` (a client's `what`: its assertion, its request object) by one of
    /// the client's registered public keys: the one `kid` names, else the only registered key
    /// of a type that fits `alg`; `alg` one of ``DPoPProof/algorithms`` (never `none`, never HMAC).
    static func checkSignature(_ jwt: SignedJWT<JWTClaims>, jwks: String, of what: String) throws(Failure) {
        guard let alg = jwt.header.alg, DPoPProof.algorithms.contains(alg) else {
            throw Failure("the \(what)'s alg must be one of \(DPoPProof.algorithms.joined(separator: ", "))")
        }
        let keys = Self.keys(jwks)
        let kid = jwt.header.kid
        let candidates = keys.filter { jwk in kid.map { jwk.kid == $0 } ?? true }
            .compactMap { try? PublicJWK(jwk: $0, alg: alg) }
        guard let key = candidates.count == 1 ? candidates.first : nil else {
            throw Failure(
                kid == nil && candidates.count > 1
                    ? "the \(what) has no kid and the client registered several keys"
                    : "no registered key of the client fits the \(what)'s kid and alg")
        }
        guard jwt.isSigned(by: key) else {
            throw Failure("the \(what)'s signature does not verify with the client's key")
        }
    }

    /// RFC 7523 §3's claims, the signature checked.
    private init(checking claims: JWTClaims, clientID: String, audiences: [String], now: Date) throws(Failure) {
        // RFC 7523 §3: iss and sub are the client, aud this server, exp in the (near) future.
        guard claims.iss == clientID, claims.sub == clientID else {
            throw Failure("the client assertion's iss and sub must be the client_id")
        }
        guard (claims.aud ?? []).contains(where: audiences.contains) else {
            throw Failure("the client assertion's aud must be the token endpoint or the issuer")
        }
        guard let exp = claims.exp else {
            throw Failure("the client assertion has no exp")
        }
        let time = now.timeIntervalSince1970
        guard exp > time else { throw Failure("the client assertion has expired") }
        guard exp <= time + Self.longestLifetime + Self.skew else {
            throw Failure("the client assertion's exp is more than \(Int(Self.longestLifetime)) s ahead")
        }
        if let iat = claims.iat, iat > time + Self.skew {
            throw Failure("the client assertion was issued in the future")
        }
        if let nbf = claims.nbf, nbf > time + Self.skew {
            throw Failure("the client assertion is not valid yet (nbf)")
        }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw Failure("the client assertion needs a jti of 1 to 256 bytes")
        }
        self.clientID = clientID
        self.jti = jti
        self.expiresAt = Date(timeIntervalSince1970: exp)
    }

    /// The keys of a JWK Set's JSON; none when it is not one.
    static func keys(_ jwks: String) -> [JWK] { JWKSet.keys(in: jwks.utf8) }

    /// Checks a JWK Set a client registers: 1 to 10 public keys UMFA can verify with, each with
    /// a distinct `kid` when there are several. The message says what is wrong; `nil` when fine.
    package static func problem(inJWKS jwks: String) -> String? {
        let keys = Self.keys(jwks)
        guard (1...10).contains(keys.count) else { return "jwks must be {\"keys\": [...]} with 1 to 10 keys" }
        for key in keys {
            let algorithms = key.alg.map { [$0] } ?? DPoPProof.algorithms
            var refusal = "jwks holds a key UMFA cannot verify with (RS256, ES256 or EdDSA public keys only)"
            var usable = false
            for algorithm in algorithms {
                do {
                    _ = try PublicJWK(jwk: key, alg: algorithm)
                    usable = true
                } catch {
                    if error.code == .privateKey || algorithms.count == 1 { refusal = "jwks: " + error.message }
                }
            }
            guard usable else { return refusal }
        }
        let kids = keys.compactMap(\.kid)
        if keys.count > 1, Set(kids).count != keys.count {
            return "jwks with several keys needs a distinct kid on each"
        }
        return nil
    }
}
