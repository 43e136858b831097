/// A JWS in compact serialisation (RFC 7515 §7.1), `BASE64URL(header) . BASE64URL(payload) .
/// BASE64URL(signature)`, split on its two dots and decoded: the one JWS/JWT reader, under
/// attestation and FIDO metadata (`CompactJWS`) and login tokens (`LoginTokenJWS`). The header
/// stays bytes; each reader decodes the JSON members it knows, and checks the signature.
public struct CompactJWSParts: Sendable {
    /// Why text is not a compact JWS.
    public enum Failure: Error, Sendable {
        /// Not three dot-separated parts.
        case notThreeParts
        /// A part is not base64url (in its canonical spelling, when that was asked for).
        case notBase64URL
    }

    /// The decoded protected header (JSON text).
    public let header: [UInt8]
    /// The decoded payload.
    public let payload: [UInt8]
    /// The decoded signature.
    public let signature: [UInt8]
    /// `BASE64URL(header) . BASE64URL(payload)` as received: the bytes the signature covers.
    public let signingInput: [UInt8]

    /// Splits `text` on its two dots (by byte: splitting by `Character` cost 10 % of a
    /// validate-token request) and decodes the parts. `canonical` accepts each part only in
    /// its one spelling (``Base64URL/decodeCanonical(_:)``), as a signed token must be read;
    /// otherwise padding and the standard alphabet are read too (``Base64URL/decode(_:)``).
    public init(_ text: String, canonical: Bool) throws(Failure) {
        let bytes = text.utf8
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = bytes[bytes.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[bytes.index(after: secondDot)...].contains(UInt8(ascii: "."))
        else { throw .notThreeParts }
        let decode = canonical ? Base64URL.decodeCanonical : Base64URL.decode
        guard let headerText = String(bytes[..<firstDot]), let header = decode(headerText),
            let payloadText = String(bytes[bytes.index(after: firstDot)..<secondDot]),
            let payload = decode(payloadText),
            let signatureText = String(bytes[bytes.index(after: secondDot)...]), let signature = decode(signatureText)
        else { throw .notBase64URL }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(bytes[..<secondDot])
    }
}
