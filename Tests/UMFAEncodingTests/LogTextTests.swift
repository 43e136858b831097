import Testing
import UMFAEncoding

/// The log-line escaper (docs/contract.md §4): request text cannot add a line, move a terminal's
/// cursor or reorder a line, also when a combining mark follows the control character.
struct LogTextTests {
    @Test("line breaks, escapes and separators are written as escapes, also before a combining mark")
    func controlsBecomeEscapes() {
        #expect(LogText.escape("a\nb") == "a\\nb")
        #expect(LogText.escape("a\r\nb") == "a\\r\\nb")
        #expect(LogText.escape("a\n\u{301}b") == "a\\n\u{301}b")
        #expect(LogText.escape("\t") == "\\t")
        #expect(LogText.escape("\u{1B}[2J") == "\\u{1B}[2J")
        #expect(LogText.escape("\u{7F}\u{85}\u{9F}") == "\\u{7F}\\u{85}\\u{9F}")
        #expect(LogText.escape("\u{2028}\u{2029}") == "\\u{2028}\\u{2029}")
        #expect(LogText.escape("\u{202E}txt.exe\u{2066}") == "\\u{202E}txt.exe\\u{2066}")
        #expect(LogText.escape("\u{0}") == "\\u{0}")
    }

    @Test("a backslash is doubled, so text cannot pass for an escape")
    func backslashDoubled() {
        #expect(LogText.escape("a\\nb") == "a\\\\nb")
        #expect(LogText.escape("\\") == "\\\\")
    }

    @Test("no line feed or carriage return survives, whatever scalars surround it")
    func noLineBreakSurvives() {
        let pieces = ["\n", "\r", "\u{301}", "\u{600}", "\u{2028}", "\u{85}", "é", "a", "\\", "😀"]
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let escaped = LogText.escape(first + second + third)
                    #expect(!escaped.utf8.contains { $0 < 0x20 || $0 == 0x7F })
                    #expect(!escaped.unicodeScalars.contains { [0x85, 0x2028, 0x2029].contains($0.value) })
                }
            }
        }
    }

    @Test("printable text comes back unchanged")
    func printableUnchanged() {
        for text in ["", "request refused", "alice@example.com", "e\u{301}t\u{E9} \u{1F600}", "\u{600}x"] {
            #expect(LogText.escape(text) == text)
        }
    }
}
