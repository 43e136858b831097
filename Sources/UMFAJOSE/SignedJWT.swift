import Foundation
import UMFAEncoding

/// A JWT in JWS compact serialisation (RFC 7515 §7.1, RFC 7519 §7.2) read into its typed header
/// and claims, its signature not yet checked: whoever reads it picks the key by the header, then
/// asks ``isSigned(by:)``.
package struct SignedJWT<Claims: Decodable & Sendable>: Sendable {
    /// The protected header.
    package let header: JWSHeader
    /// The claims.
    package let claims: Claims
    /// The parts as received: the signature is checked over their bytes, never a re-encoding.
    package let parts: CompactJWSParts

    /// Reads `text`; `canonical` accepts each part in its one base64url spelling only
    /// (``CompactJWSParts``). Throws ``JOSEError/Code/notCompactJWS`` unless it is three parts
    /// whose header and payload are JSON objects.
    package init(_ text: String, canonical: Bool = true) throws(JOSEError) {
        guard let parts = try? CompactJWSParts(text, canonical: canonical) else {
            throw JOSEError(.notCompactJWS, "not three base64url parts joined by dots")
        }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(JWSHeader.self, from: Data(parts.header)) else {
            throw JOSEError(.notCompactJWS, "the header is not a JSON object")
        }
        guard let claims = try? decoder.decode(Claims.self, from: Data(parts.payload)) else {
            throw JOSEError(.notCompactJWS, "the payload is not a JSON object of the expected claims")
        }
        (self.header, self.claims, self.parts) = (header, claims, parts)
    }

    /// Whether its signature verifies with `key` (for the algorithm `key` was read for).
    package func isSigned(by key: PublicJWK) -> Bool {
        key.isValidSignature(Data(parts.signature), for: Data(parts.signingInput))
    }

    /// Whether its signature verifies with `key`.
    package func isSigned(by key: JWSSigningKey) -> Bool {
        key.isValidSignature(Data(parts.signature), for: Data(parts.signingInput))
    }
}

/// Writes a JWS in compact serialisation (RFC 7515 §7.1).
package enum JWSCompactSerialization {
    /// `header` and `claims` as JSON with sorted keys (slashes escaped, as `JSONSerialization`
    /// writes them), signed with `key`.
    package static func sign(header: JWSHeader, claims: some Encodable, key: JWSSigningKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try sign(
            encodedHeader: Base64URL.encode(try encoder.encode(header)), payload: try encoder.encode(claims),
            key: key)
    }

    /// `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)` for a header already
    /// encoded (a signer that keeps each key's header ready).
    package static func sign(encodedHeader: String, payload: Data, key: JWSSigningKey) throws -> String {
        try sign(encodedHeader: encodedHeader, payload: payload) { try key.signature(for: $0) }
    }

    /// The same, with the signature made by `signature` over the ASCII signing input.
    package static func sign(encodedHeader: String, payload: Data, signature: (Data) throws -> Data) rethrows
        -> String
    {
        let signingInput = encodedHeader + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try signature(Data(signingInput.utf8)))
    }
}
