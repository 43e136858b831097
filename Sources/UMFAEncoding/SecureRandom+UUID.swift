extension SecureRandom {
    /// A new random UUID (RFC 9562 §5.4, version 4) in its lowercase text form, from two draws of
    /// the system generator.
    ///
    /// Foundation's `UUID()` on Linux opens and reads `/dev/urandom` for each one; a login made
    /// three of them (two trace ids and the token's `jti`), about 2 % of the server's CPU.
    public static func uuidString() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: generator.next()) { bytes.replaceSubrange(0..<8, with: $0) }
        withUnsafeBytes(of: generator.next()) { bytes.replaceSubrange(8..<16, with: $0) }
        // Step: version 4 in the high nibble of octet 6, variant 0b10 in the top bits of octet 8.
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUIDText.lowercase(bytes)
    }
}

/// The text form of a UUID's 16 bytes (RFC 9562 §4): lowercase hex, dashes after octets 4, 6,
/// 8 and 10, written byte by byte.
public enum UUIDText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` for `bytes`, which must be 16 bytes.
    public static func lowercase(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for (position, byte) in bytes.enumerated() {
                if position == 4 || position == 6 || position == 8 || position == 10 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
