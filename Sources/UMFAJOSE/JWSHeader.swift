/// A JWS protected header (RFC 7515 §4.1) with the parameters UMFA writes or reads, and the names
/// of every parameter it was read with (so that `crit`, or any parameter, is known to be there
/// even when its value is not of the expected type). A parameter of another type reads as absent.
package struct JWSHeader: Codable, Sendable, Hashable {
    /// The algorithm (RFC 7515 §4.1.1).
    package var alg: String?
    /// The type (RFC 7515 §4.1.9): `dpop+jwt`, `at+jwt`, `JWT`, `umfa-device+jwt`.
    package var typ: String?
    /// The key id (RFC 7515 §4.1.4).
    package var kid: String?
    /// The public key that signed it (RFC 7515 §4.1.3), as DPoP proofs carry it.
    package var jwk: JWK?
    /// The issuer, as UMFA's login tokens repeat it in the header.
    package var iss: String?
    /// Extensions the recipient must understand (RFC 7515 §4.1.11); UMFA understands none.
    package var crit: [String]?
    /// The names of the parameters it was read with; for a header made here, those set.
    package let members: Set<String>

    /// A header of the given parameters.
    package init(
        alg: String?, typ: String? = nil, kid: String? = nil, jwk: JWK? = nil, iss: String? = nil,
        crit: [String]? = nil
    ) {
        (self.alg, self.typ, self.kid, self.jwk, self.iss, self.crit) = (alg, typ, kid, jwk, iss, crit)
        let set: [(String, Bool)] = [
            ("alg", alg != nil), ("typ", typ != nil), ("kid", kid != nil), ("jwk", jwk != nil), ("iss", iss != nil),
            ("crit", crit != nil),
        ]
        members = Set(set.filter(\.1).map(\.0))
    }

    /// The header `{"alg":algorithm,…}` of one of UMFA's algorithms.
    package init(algorithm: JWSAlgorithm, typ: String? = nil, kid: String? = nil, jwk: JWK? = nil, iss: String? = nil) {
        self.init(alg: algorithm.rawValue, typ: typ, kid: kid, jwk: jwk, iss: iss)
    }

    /// `alg` when it is one of UMFA's algorithms.
    package var algorithm: JWSAlgorithm? { alg.flatMap(JWSAlgorithm.init(rawValue:)) }

    /// Reads a JSON object; parameters of another type read as absent.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MemberKey.self)
        alg = container.lenient("alg")
        typ = container.lenient("typ")
        kid = container.lenient("kid")
        jwk = container.lenient("jwk")
        iss = container.lenient("iss")
        crit = container.lenient("crit")
        members = container.memberNames
    }

    /// Writes the parameters that are set (sorted by an encoder that sorts keys).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode(alg, as: "alg")
        try container.encode(crit, as: "crit")
        try container.encode(iss, as: "iss")
        try container.encode(jwk, as: "jwk")
        try container.encode(kid, as: "kid")
        try container.encode(typ, as: "typ")
    }
}
