import Foundation

/// A message as UMFA sends it (RFC 5322, RFC 2045): plain UTF-8 text, its body in base64 and a
/// subject with non-ASCII text as an RFC 2047 encoded word, so no value it carries can add a
/// header or end the SMTP `DATA` early.
struct MailMessage: Sendable, Equatable {
    let id: String
    let from: String
    let to: String
    let subject: String
    let body: String
    let date: Date

    /// The message's `Message-ID` domain.
    static let idDomain = "umfa.localhost"

    /// The whole message, lines ending in CRLF.
    var rendered: String {
        let headers = [
            "From: \(Self.headerSafe(from))",
            "To: <\(to)>",
            "Subject: \(Self.encodedWords(subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: <\(id)@\(Self.idDomain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            // RFC 3834 §5: mail no person wrote; autoresponders leave it alone.
            "Auto-Submitted: auto-generated",
        ]
        let encoded = Data(body.utf8).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return (headers + [""] + lines).map { $0 + "\r\n" }.joined()
    }

    /// `text` without control characters (a header value stays one line).
    static func headerSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }))
    }

    /// `text` as it may stand in a header: as is when printable ASCII, else RFC 2047 `B`
    /// encoded words of at most 45 bytes of UTF-8 each, never splitting a Unicode scalar.
    static func encodedWords(_ text: String) -> String {
        let safe = headerSafe(text)
        guard safe.unicodeScalars.contains(where: { $0.value > 0x7e }) else { return safe }
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in safe.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// `Sun, 29 Nov 2026 23:59:00 +0000` (RFC 5322 §3.3).
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// `text` with CRLF line ends and each line that starts with `.` given one more (RFC 5321
    /// §4.5.2), ending in CRLF.
    static func dotStuffed(_ text: String) -> String {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines.map { ($0.hasPrefix(".") ? "." : "") + $0 + "\r\n" }.joined()
    }
}
