import Foundation

/// The JWT claims (RFC 7519 §4.1) UMFA's proofs and assertions carry, with those of DPoP proofs
/// (RFC 9449 §4.2) and UMFA's device proofs, and the names of every claim it was read with. A
/// claim of another type reads as absent; times are NumericDate seconds, written as integers
/// when whole.
package struct JWTClaims: Codable, Sendable, Hashable {
    /// The issuer.
    package var iss: String?
    /// The subject.
    package var sub: String?
    /// The audience: one or several.
    package var aud: [String]?
    /// The expiry, seconds since 1970.
    package var exp: Double?
    /// Not before, seconds since 1970.
    package var nbf: Double?
    /// Issued at, seconds since 1970.
    package var iat: Double?
    /// The unique id.
    package var jti: String?
    /// The HTTP method of the request a proof is for.
    package var htm: String?
    /// The URL of the request a proof is for, without query and fragment.
    package var htu: String?
    /// The access token's SHA-256 hash, base64url (RFC 9449 §4.2).
    package var ath: String?
    /// The server's nonce (RFC 9449 §8).
    package var nonce: String?
    /// The names of the claims it was read with; for claims made here, those set.
    package let members: Set<String>

    private static let names = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "htm", "htu", "ath", "nonce"]

    /// Claims of the given values; an `aud` of one audience is written as a string.
    package init(
        iss: String? = nil, sub: String? = nil, aud: [String]? = nil, exp: Double? = nil, nbf: Double? = nil,
        iat: Double? = nil, jti: String? = nil, htm: String? = nil, htu: String? = nil, ath: String? = nil,
        nonce: String? = nil
    ) {
        (self.iss, self.sub, self.aud, self.exp, self.nbf, self.iat) = (iss, sub, aud, exp, nbf, iat)
        (self.jti, self.htm, self.htu, self.ath, self.nonce) = (jti, htm, htu, ath, nonce)
        let set =
            [iss != nil, sub != nil, aud != nil, exp != nil, nbf != nil, iat != nil]
            + [jti != nil, htm != nil, htu != nil, ath != nil, nonce != nil]
        members = Set(zip(Self.names, set).filter(\.1).map(\.0))
    }

    /// Reads a JSON object; claims of another type read as absent, `aud` as a string or an array
    /// of strings.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MemberKey.self)
        iss = container.lenient("iss")
        sub = container.lenient("sub")
        aud = container.lenient("aud", as: [String].self) ?? container.lenient("aud", as: String.self).map { [$0] }
        exp = container.lenient("exp")
        nbf = container.lenient("nbf")
        iat = container.lenient("iat")
        jti = container.lenient("jti")
        htm = container.lenient("htm")
        htu = container.lenient("htu")
        ath = container.lenient("ath")
        nonce = container.lenient("nonce")
        members = container.memberNames
    }

    /// Writes the claims that are set.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode(ath, as: "ath")
        if let aud { try aud.count == 1 ? container.encode(aud[0], as: "aud") : container.encode(aud, as: "aud") }
        try container.encode(exp.map(NumericDate.init), as: "exp")
        try container.encode(htm, as: "htm")
        try container.encode(htu, as: "htu")
        try container.encode(iat.map(NumericDate.init), as: "iat")
        try container.encode(iss, as: "iss")
        try container.encode(jti, as: "jti")
        try container.encode(nbf.map(NumericDate.init), as: "nbf")
        try container.encode(nonce, as: "nonce")
        try container.encode(sub, as: "sub")
    }
}

/// A NumericDate (RFC 7519 §2) as written: an integer when the seconds are whole.
private struct NumericDate: Encodable {
    let seconds: Double

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) {
            try container.encode(whole)
        } else {
            try container.encode(seconds)
        }
    }
}
