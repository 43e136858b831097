import Testing
import UMFAEncoding

/// The one HTML escaper (docs/contract.md §4): every special character is found by byte, also
/// when a combining mark makes it part of a longer Swift `Character`.
struct HTMLTextTests {
    static let references: [(String, String)] = [
        ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
    ]

    /// Scalars that join the character before them into one grapheme cluster: combining acute,
    /// a pile of two marks, an enclosing circle, a variation selector, a zero-width joiner, an
    /// emoji skin tone, and a spacing mark.
    static let joiners = ["\u{301}", "\u{301}\u{327}", "\u{20DD}", "\u{FE0F}", "\u{200D}", "\u{1F3FB}", "\u{903}"]

    @Test("each special character alone is its reference")
    func loneSpecials() {
        for (special, reference) in Self.references {
            #expect(HTMLText.escape(special) == reference)
        }
    }

    @Test("each special character followed by a combining mark is still its reference, the mark kept")
    func specialsBeforeJoiners() {
        for (special, reference) in Self.references {
            for joiner in Self.joiners {
                // The premise: Swift sees one Character that is not the special character.
                #expect(Array(special + joiner).count == 1 && Character(special + joiner) != Character(special))
                #expect(HTMLText.escape(special + joiner) == reference + joiner)
                #expect(HTMLText.escape("x" + special + joiner + "y") == "x" + reference + joiner + "y")
            }
        }
    }

    @Test("a prepended scalar before a special character does not hide it")
    func prependBeforeSpecial() {
        // U+0600 ARABIC NUMBER SIGN is a grapheme "Prepend": it joins the character after it.
        for (special, reference) in Self.references {
            #expect(HTMLText.escape("\u{600}" + special) == "\u{600}" + reference)
        }
    }

    @Test("no raw special byte survives, whatever scalars surround it")
    func noSpecialByteSurvives() {
        let pieces = Self.references.map(\.0) + Self.joiners + ["a", "é", "e\u{301}", "\u{600}", "\r\n", "😀", " "]
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let escaped = HTMLText.escape(first + second + third)
                    #expect(!escaped.utf8.contains { [0x22, 0x27, 0x3C, 0x3E].contains($0) })
                    // Every `&` byte starts one of the five references.
                    let bytes = Array(escaped.utf8)
                    for index in bytes.indices where bytes[index] == UInt8(ascii: "&") {
                        let rest = bytes[(index + 1)...]
                        #expect(["amp;", "lt;", "gt;", "quot;", "#39;"].contains { rest.starts(with: $0.utf8) })
                    }
                }
            }
        }
    }

    @Test("text without special characters comes back unchanged, scalar for scalar")
    func plainTextUnchanged() {
        for text in ["", "alice@example.com", "e\u{301}t\u{E9}", "\u{1F469}\u{200D}\u{1F4BB}", "a\u{0}b", "\u{600}x"] {
            #expect(Array(HTMLText.escape(text).unicodeScalars) == Array(text.unicodeScalars))
        }
    }
}
