import Testing
import UMFAEncoding

/// Splitting protocol text at an ASCII delimiter by byte (docs/contract.md §4): a delimiter that a
/// combining mark or a prepended scalar makes part of a longer Swift `Character` still splits.
struct ASCIISplitTests {
    @Test("a delimiter followed by a combining mark still splits, the mark staying with the next piece")
    func delimiterBeforeCombiningMark() {
        // The premise: Character-wise split misses the delimiter.
        #expect("a&\u{301}b".split(separator: "&").count == 1)
        #expect(ASCIISplit.split("a&\u{301}b", at: "&") == ["a", "\u{301}b"])
        #expect(ASCIISplit.split("n=\u{301}v", at: "=", maxSplits: 1) == ["n", "\u{301}v"])
        #expect(ASCIISplit.split("a;\u{20DD} b", at: ";") == ["a", "\u{20DD} b"])
    }

    @Test("a delimiter after a prepended scalar still splits")
    func delimiterAfterPrepend() {
        #expect("1.1.1.1\u{600}, 2.2.2.2".split(separator: ",").count == 1)
        #expect(ASCIISplit.split("1.1.1.1\u{600}, 2.2.2.2", at: ",") == ["1.1.1.1\u{600}", " 2.2.2.2"])
    }

    @Test("splits as split(separator:) does on ASCII text: limits and empty pieces")
    func agreesWithStandardLibraryOnASCII() {
        for text in ["", "&", "a", "a&b", "&a&&b&", "a=b=c", "==", "a&b&c&d"] {
            for delimiter: Unicode.Scalar in ["&", "="] {
                for maxSplits in [0, 1, 2, Int.max] {
                    for omitting in [true, false] {
                        let expected = text.split(
                            separator: Character(delimiter), maxSplits: maxSplits, omittingEmptySubsequences: omitting)
                        #expect(
                            ASCIISplit.split(text, at: delimiter, maxSplits: maxSplits, omittingEmpty: omitting)
                                == expected, "\(text) \(delimiter) \(maxSplits) \(omitting)")
                    }
                }
            }
        }
    }

    @Test("contains finds the byte inside a longer Character; trimming keeps marks")
    func containsAndTrim() {
        #expect(!"a?\u{301}".contains("?") && ASCIISplit.contains("a?\u{301}", "?"))
        #expect(!ASCIISplit.contains("abc", "?"))
        #expect(ASCIISplit.trimmingWhitespace(" \t a\u{301} \t") == "a\u{301}")
        #expect(ASCIISplit.trimmingWhitespace(" \u{301}x ") == "\u{301}x")
        #expect(ASCIISplit.trimmingWhitespace("  ") == "")
    }
}
