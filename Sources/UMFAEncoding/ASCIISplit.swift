/// Splitting of protocol text (form bodies, `Cookie`, `X-Forwarded-For`, header parameters) at an
/// ASCII delimiter, by UTF-8 byte.
///
/// `String.split(separator:)` and `contains(_:)` compare Swift `Character`s (grapheme clusters):
/// `&` followed by U+0301, or U+0600 followed by `,`, is one `Character` that is not the
/// delimiter, so the text would be split where no byte-wise reader (a proxy, a browser, a
/// firewall) splits it. The protocols define their delimiters as bytes (RFC 9110 §5.6.1,
/// RFC 6265 §4.2.1, the URL Standard's `application/x-www-form-urlencoded` parser), and so does
/// this. Each piece starts and ends at a Unicode scalar boundary, since UTF-8 never uses an
/// ASCII byte inside a longer sequence.
public enum ASCIISplit {
    /// The pieces of `text` between each `delimiter` byte, as `split(separator:)` would give them
    /// if it compared bytes: at most `maxSplits` splits, empty pieces dropped when
    /// `omittingEmpty`.
    public static func split<Text: StringProtocol>(
        _ text: Text, at delimiter: Unicode.Scalar, maxSplits: Int = .max, omittingEmpty: Bool = true
    ) -> [Substring] {
        precondition(delimiter.isASCII, "the delimiter must be ASCII")
        let byte = UInt8(delimiter.value)
        let whole = Substring(text)
        var pieces: [Substring] = []
        var start = whole.startIndex
        var index = whole.utf8.startIndex
        while index < whole.utf8.endIndex {
            if whole.utf8[index] == byte, pieces.count < maxSplits {
                if !(omittingEmpty && start == index) { pieces.append(whole[start..<index]) }
                start = whole.utf8.index(after: index)
            }
            index = whole.utf8.index(after: index)
        }
        if !(omittingEmpty && start == whole.endIndex) { pieces.append(whole[start...]) }
        return pieces
    }

    /// Whether `text` holds the `delimiter` byte anywhere.
    public static func contains<Text: StringProtocol>(_ text: Text, _ delimiter: Unicode.Scalar) -> Bool {
        precondition(delimiter.isASCII, "the delimiter must be ASCII")
        return text.utf8.contains(UInt8(delimiter.value))
    }

    /// `text` without the spaces and horizontal tabs around it (RFC 9110 §5.6.3 `OWS`).
    public static func trimmingWhitespace<Text: StringProtocol>(_ text: Text) -> Substring {
        let whole = Substring(text)
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = whole.utf8.firstIndex(where: { !isSpace($0) }),
            let last = whole.utf8.lastIndex(where: { !isSpace($0) })
        else { return whole[whole.endIndex...] }
        // One past the last byte of the last scalar kept: a scalar boundary.
        return whole[first..<whole.utf8.index(after: last)]
    }
}
