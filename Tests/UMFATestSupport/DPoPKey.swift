import Crypto
import Foundation
import UMFAEncoding

/// A client's DPoP key (P-256) and the proofs it makes (RFC 9449 §4.2), with knobs for making
/// exactly one thing wrong.
public struct DPoPKey: Sendable {
    /// The private key.
    public let privateKey = P256.Signing.PrivateKey()
    /// The client's clock, for `iat` (the test server's clock in server tests).
    public var now: @Sendable () -> Date = { Date() }

    /// A new key whose proofs take `iat` from `now`.
    public init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    /// The public JWK members.
    public var jwk: [String: String] {
        let raw = privateKey.publicKey.rawRepresentation
        return [
            "kty": "EC", "crv": "P-256", "x": Base64URL.encode(Array(raw.prefix(32))),
            "y": Base64URL.encode(Array(raw.suffix(32))),
        ]
    }

    /// Its RFC 7638 thumbprint, computed here by hand.
    public var thumbprint: String {
        let jwk = self.jwk
        let json = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"] ?? "")","y":"\#(jwk["y"] ?? "")"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Array(json.utf8))))
    }

    /// A signed proof for `method` and `url`; `header` and `claims` replace or add members
    /// (`nil` removes one).
    public func proof(
        _ method: String, _ url: String, accessToken: String? = nil, nonce: String? = nil, iat: Date? = nil,
        header: [String: Any?] = [:], claims: [String: Any?] = [:]
    ) -> String {
        var headerMembers: [String: Any] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": jwk]
        for (name, value) in header { headerMembers[name] = value }
        var claimMembers: [String: Any] = [
            "jti": UUID().uuidString, "htm": method, "htu": url, "iat": Int((iat ?? now()).timeIntervalSince1970),
        ]
        if let accessToken {
            claimMembers["ath"] = Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))))
        }
        if let nonce { claimMembers["nonce"] = nonce }
        for (name, value) in claims { claimMembers[name] = value }
        return sign(header: headerMembers, claims: claimMembers)
    }

    /// Any header and claims, signed ES256 with this key.
    public func sign(header: [String: Any], claims: [String: Any]) -> String {
        let encode = { (object: [String: Any]) in
            Base64URL.encode(
                Array((try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data()))
        }
        let input = encode(header) + "." + encode(claims)
        // A signing failure leaves the signature empty: the JWT is then refused, never accepted.
        let signature =
            (try? privateKey.signature(for: SHA256.hash(data: Array(input.utf8))))?.rawRepresentation ?? Data()
        return input + "." + Base64URL.encode(Array(signature))
    }

    /// A `private_key_jwt` client assertion (RFC 7523) for `client` and `audience`; `claims`
    /// replace or remove members.
    public func assertion(client: String, audience: String, kid: String? = "k1", claims: [String: Any?] = [:]) -> String
    {
        let time = Int(now().timeIntervalSince1970)
        var members: [String: Any] = [
            "iss": client, "sub": client, "aud": audience, "exp": time + 120, "iat": time, "jti": UUID().uuidString,
        ]
        for (name, value) in claims { members[name] = value }
        var header: [String: Any] = ["alg": "ES256", "typ": "JWT"]
        if let kid { header["kid"] = kid }
        return sign(header: header, claims: members)
    }
}
