import Foundation
import Testing
import UMFAEncoding
import UMFATestSupport

/// The percent-decoder of form bodies, HTTP Basic credentials and path parameters, against
/// Foundation's `removingPercentEncoding`, which it replaced.
struct PercentEncodingTests {
    @Test(arguments: [
        ("a%20b", "a b"), ("a+b", "a b"), ("%2B", "+"), ("%2b%2F", "+/"), ("caf%C3%A9", "café"), ("", ""),
        ("plain", "plain"),
    ])
    func formDecoding(encoded: String, decoded: String) {
        #expect(PercentEncoding.decode(Substring(encoded), plusAsSpace: true) == decoded)
    }

    @Test func plusIsASpaceOnlyInForms() {
        #expect(PercentEncoding.decode("a+b", plusAsSpace: false) == "a+b")
    }

    @Test(arguments: ["%", "%4", "%G1", "a%2", "%C3", "%FF", "%C3%28", "100%"])
    func brokenEscapesAndNonUTF8AreRefused(encoded: String) {
        #expect(PercentEncoding.decode(Substring(encoded), plusAsSpace: true) == nil)
    }

    /// Seeded random text over the characters that matter agrees with Foundation on every input
    /// except bytes that are not UTF-8: Foundation on Linux turns them into U+FFFD, so two
    /// different secrets could decode alike; UMFA refuses them.
    @Test func agreesWithFoundationOnRandomText() {
        let pieces = ["a", "Z", "+", "%", "2", "B", "c", "F", "G", "%2", "%C3", "%A9", "é", " ", "%00", "%7e", "~"]
        var generator = SeededGenerator(seed: 0x5EED)
        func next() -> UInt64 { generator.next() }
        for _ in 0..<20_000 {
            let text = (0..<Int(next() % 12)).map { _ in pieces[Int(next() % UInt64(pieces.count))] }.joined()
            for plusAsSpace in [true, false] {
                let foundation = (plusAsSpace ? text.replacingOccurrences(of: "+", with: " ") : text)
                    .removingPercentEncoding
                let repaired = foundation?.unicodeScalars.contains("\u{FFFD}") ?? false
                #expect(
                    PercentEncoding.decode(Substring(text), plusAsSpace: plusAsSpace) == (repaired ? nil : foundation),
                    "\(text)")
            }
        }
    }
}
