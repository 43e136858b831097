import Testing
import UMFAEncoding

/// Identifiers are the same when their UTF-8 bytes are, as SQLite and PostgreSQL compare them,
/// not when Swift's `String ==` (Unicode canonical equivalence) says so (docs/contract.md §4).
struct ByteIdentityTests {
    @Test("a precomposed and a decomposed é are one String to Swift and two identifiers")
    func canonicalEquivalentsDiffer() {
        let precomposed = "jos\u{E9}"
        let decomposed = "jose\u{301}"
        #expect(precomposed == decomposed)
        #expect(!precomposed.isSameBytes(as: decomposed))
        #expect(precomposed.isSameBytes(as: "jos\u{E9}"))
        #expect(precomposed.byteCount == 5)
        #expect(decomposed.byteCount == 6)
    }

    @Test("optional identifiers: both absent, or both present with the same bytes")
    func optionals() {
        let none: String? = nil
        #expect(none.isSameBytes(as: nil))
        #expect(!none.isSameBytes(as: "a"))
        #expect(!Optional("a").isSameBytes(as: nil))
        #expect(Optional("a").isSameBytes(as: "a"))
        #expect(!Optional("jos\u{E9}").isSameBytes(as: "jose\u{301}"))
    }

    @Test("substrings compare by their bytes too")
    func substrings() {
        let text = "alice@example.com"
        let user = text.prefix(5)
        #expect(user.isSameBytes(as: "alice"))
        #expect(user.byteCount == 5)
    }
}
