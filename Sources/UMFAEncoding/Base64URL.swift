import Foundation

/// Base64url (RFC 4648 §5) as WebAuthn's JSON encodings use it: written without padding,
/// read with or without it. Reading also takes the standard alphabet (`+`, `/`), which some
/// clients and fixtures still send.
public enum Base64URL {
    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let written = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0) }) { return written }
        return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0) }
    }

    /// Writes four characters per three bytes straight into the string's storage.
    private static func encode(contiguous input: UnsafeBufferPointer<UInt8>) -> String {
        let count = (input.count * 4 + 2) / 3
        guard count > 0 else { return "" }
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: count) { output in
                var index = 0
                var written = 0
                func put(_ group: UInt32, _ shift: UInt32) {
                    output[written] = alphabet[Int((group >> shift) & 0x3F)]
                    written += 1
                }
                while index + 3 <= input.count {
                    let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    put(group, 18)
                    put(group, 12)
                    put(group, 6)
                    put(group, 0)
                    index += 3
                }
                switch input.count - index {
                case 1:
                    let group = UInt32(input[index]) << 16
                    put(group, 18)
                    put(group, 12)
                case 2:
                    let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    put(group, 18)
                    put(group, 12)
                    put(group, 6)
                default:
                    break
                }
                return written
            }
        }
    }

    /// Decodes base64url text, with or without padding; `nil` when it is not base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0, canonical: false) }
    }

    /// Decodes base64url text only in its one canonical spelling: the URL-safe alphabet, no
    /// padding, and zero spare bits in the last character. Signed text such as a JWS must have
    /// one spelling, or one token would have several.
    public static func decodeCanonical(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0, canonical: true) }
    }

    /// Decodes base64url from its UTF-8 bytes: the one decoder behind ``decode(_:)`` and
    /// ``decodeCanonical(_:)``, for readers (such as `CompactJWSParts` of UMFAJOSE) that already hold the
    /// bytes. `canonical` takes only the URL-safe alphabet without padding and with zero spare
    /// bits; otherwise trailing `=` and the standard alphabet (`+`, `/`) are read too.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>, canonical: Bool) -> [UInt8]? {
        var count = input.count
        if !canonical {
            while count > 0, input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard count % 4 != 1 else { return nil }
        let table = canonical ? canonicalTable : decodingTable
        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var output: [UInt8] = []
            output.reserveCapacity(count * 3 / 4)
            var group: UInt32 = 0
            for position in 0..<count {
                let value = table[Int(input[position])]
                guard value != invalid else { return nil }
                group = group << 6 | UInt32(value)
                if position & 3 == 3 {
                    output.append(UInt8(truncatingIfNeeded: group >> 16))
                    output.append(UInt8(truncatingIfNeeded: group >> 8))
                    output.append(UInt8(truncatingIfNeeded: group))
                    group = 0
                }
            }
            // A final group of 2 or 3 characters carries 1 or 2 bytes. Its last character has 4
            // or 2 spare low bits, which a canonical encoder writes as zero.
            switch count & 3 {
            case 2:
                guard !canonical || group & 0x0F == 0 else { return nil }
                output.append(UInt8(truncatingIfNeeded: group >> 4))
            case 3:
                guard !canonical || group & 0x03 == 0 else { return nil }
                output.append(UInt8(truncatingIfNeeded: group >> 10))
                output.append(UInt8(truncatingIfNeeded: group >> 2))
            default: break
            }
            return output
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let invalid: UInt8 = 0xFF

    /// Character → 6-bit value, for both the URL-safe (`-`, `_`) and the standard (`+`, `/`) alphabet.
    private static let decodingTable: [UInt8] = {
        var table = canonicalTable
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Character → 6-bit value, for the URL-safe alphabet only.
    private static let canonicalTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

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
