import Foundation

/// Base64url (RFC 4648 §5) as WebAuthn's JSON encodings use it: written without padding,
/// read with or without it. Reading also takes the standard alphabet (`+`, `/`), which some
/// clients and fixtures still send.
public enum Base64URL {
    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url text, with or without padding; `nil` when it is not base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body = body.dropLast() }
        guard body.utf8.allSatisfy(isAlphabet), body.utf8.count % 4 != 1 else { return nil }
        var standard = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        return [UInt8](data)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}

/// Bytes that travel in JSON as a base64url string, as every WebAuthn JSON encoding does.
public struct Base64URLBytes: Sendable, Hashable, Codable, ExpressibleByArrayLiteral,
    CustomStringConvertible
{
    /// The raw bytes.
    public var bytes: [UInt8]

    /// Wraps raw bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Wraps raw bytes given as a literal.
    public init(arrayLiteral elements: UInt8...) { self.bytes = elements }

    /// Decodes base64url text; `nil` when it is not base64url.
    public init?(base64URL text: String) {
        guard let bytes = Base64URL.decode(text) else { return nil }
        self.bytes = bytes
    }

    /// The base64url text without padding.
    public var base64URL: String { Base64URL.encode(bytes) }

    /// The base64url text.
    public var description: String { base64URL }

    /// Whether there are no bytes.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Decodes from a single JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let bytes = Base64URL.decode(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not base64url")
        }
        self.bytes = bytes
    }

    /// Encodes as a single JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64URL)
    }
}
