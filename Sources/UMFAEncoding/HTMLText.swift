/// Text made safe for HTML: element content and quoted attribute values (HTML Living Standard
/// §13.1.2.3 and §13.1.2.6: `&`, `<`, `>`, `"` and `'` written as character references).
///
/// Escaping works on UTF-8 bytes, never on Swift `Character`s: a `Character` is a grapheme
/// cluster, and `"` followed by a combining mark (U+0301) is one `Character` that is not `"`,
/// yet the browser's tokenizer reads the `"` and ends the attribute there. Every special
/// character is one ASCII byte, and UTF-8 never uses an ASCII byte inside a longer sequence, so
/// a byte-wise pass finds each of them wherever it stands.
public enum HTMLText {
    /// `text` with each `&`, `<`, `>`, `"` and `'` replaced by its character reference; every
    /// other Unicode scalar is kept as it is.
    public static func escape(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: isSpecial) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): escaped += Array("&amp;".utf8)
            case UInt8(ascii: "<"): escaped += Array("&lt;".utf8)
            case UInt8(ascii: ">"): escaped += Array("&gt;".utf8)
            case UInt8(ascii: "\""): escaped += Array("&quot;".utf8)
            case UInt8(ascii: "'"): escaped += Array("&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
