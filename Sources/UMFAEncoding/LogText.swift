/// Text made safe for one line of a log: whatever a request put in it cannot start a new line,
/// move a terminal's cursor or reorder what the operator reads.
///
/// Works per Unicode scalar, never per Swift `Character`: a line feed followed by a combining
/// mark is one `Character`, and the terminal still breaks the line there.
public enum LogText {
    /// `text` with each ``isUnsafe(_:)`` scalar written as an escape (`\n`, `\r`, `\t`,
    /// `\u{1B}`), and each backslash doubled so an escape in the text cannot pass for one written
    /// here; every other scalar is kept.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\\") }) else {
            return text
        }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isUnsafe(scalar):
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `scalar` can start a line, steer a terminal or reorder or hide what is read: a
    /// control character (C0, DEL, C1), a line or paragraph separator (U+2028, U+2029), a
    /// bidirectional control or mark (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), or
    /// an invisible one (U+200B–U+200D, U+2060–U+2064, U+FEFF).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x2069,
            0xFEFF:
            true
        default: false
        }
    }
}
