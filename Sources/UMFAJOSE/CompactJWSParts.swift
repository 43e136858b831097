import UMFAEncoding

/// A JWS in compact serialisation (RFC 7515 §7.1), `BASE64URL(header) . BASE64URL(payload) .
/// BASE64URL(signature)`, split on its two dots and decoded: the one JWS/JWT reader, under
/// attestation and FIDO metadata (`CompactJWS`), login tokens (`LoginTokenJWS`) and ``SignedJWT``. The header
/// stays bytes; each reader decodes the JSON members it knows, and checks the signature.
package struct CompactJWSParts: Sendable {
    /// Why text is not a compact JWS.
    package enum Failure: Error, Sendable {
        /// Not three dot-separated parts.
        case notThreeParts
        /// A part is not base64url (in its canonical spelling, when that was asked for).
        case notBase64URL
    }

    /// The decoded protected header (JSON text).
    package let header: [UInt8]
    /// The decoded payload.
    package let payload: [UInt8]
    /// The decoded signature.
    package let signature: [UInt8]
    /// `BASE64URL(header) . BASE64URL(payload)` as received: the bytes the signature covers.
    package let signingInput: [UInt8]

    /// Splits `text` on its two dots (by byte: splitting by `Character` cost 10 % of a
    /// validate-token request) and decodes the parts. `canonical` accepts each part only in
    /// its one spelling (``Base64URL/decodeCanonical(_:)``), as a signed token must be read;
    /// otherwise padding and the standard alphabet are read too (``Base64URL/decode(_:)``).
    package init(_ text: String, canonical: Bool) throws(Failure) {
        var text = text
        let parts = text.withUTF8 { bytes -> Result<([UInt8], [UInt8], [UInt8], [UInt8]), Failure> in
            guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
                let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
                !bytes[(secondDot + 1)...].contains(UInt8(ascii: "."))
            else { return .failure(.notThreeParts) }
            func decoded(_ range: Range<Int>) -> [UInt8]? {
                Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[range]), canonical: canonical)
            }
            guard let header = decoded(0..<firstDot), let payload = decoded((firstDot + 1)..<secondDot),
                let signature = decoded((secondDot + 1)..<bytes.count)
            else { return .failure(.notBase64URL) }
            return .success((header, payload, signature, Array(bytes[..<secondDot])))
        }
        (header, payload, signature, signingInput) = try parts.get()
    }
}
