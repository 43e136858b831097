/// Percent-encoded text (RFC 3986 §2.1) as form bodies (`application/x-www-form-urlencoded`)
/// and HTTP Basic credentials of OAuth clients (RFC 6749 §2.3.1) carry it.
public enum PercentEncoding {
    /// The text `encoded` stands for: each `%XY` (hex, either case) is the byte 0xXY, and `+`
    /// is a space when `plusAsSpace` (form encoding); `nil` when a `%` is not followed by two
    /// hex digits or the bytes are not UTF-8.
    public static func decode(_ encoded: Substring, plusAsSpace: Bool) -> String? {
        let utf8 = encoded.utf8
        if let decoded = utf8.withContiguousStorageIfAvailable({ decode(bytes: $0, plusAsSpace: plusAsSpace) }) {
            return decoded
        }
        return Array(utf8).withUnsafeBufferPointer { decode(bytes: $0, plusAsSpace: plusAsSpace) }
    }

    private static func decode(bytes input: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String? {
        let plus = UInt8(ascii: "+")
        let percent = UInt8(ascii: "%")
        // Text with nothing to decode is returned as it is.
        if !input.contains(where: { $0 == percent || (plusAsSpace && $0 == plus) }) {
            return String(validating: input, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == percent {
                guard index + 2 < input.count, let high = Hex.nibble(input[index + 1]),
                    let low = Hex.nibble(input[index + 2])
                else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusAsSpace && byte == plus ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }
}
