import Testing
import UMFAEncoding

/// Lowercase hex for digests and ids: RFC 4648 §10's base16 vectors (written in lower case),
/// read back in either case, and anything else refused.
struct HexTests {
    @Test(
        "RFC 4648 §10 base16 vectors",
        arguments: [
            ("", ""), ("f", "66"), ("fo", "666f"), ("foo", "666f6f"), ("foob", "666f6f62"),
            ("fooba", "666f6f6261"), ("foobar", "666f6f626172"),
        ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Hex.encode(Array(plain.utf8)) == encoded)
        #expect(Hex.decode(encoded) == Array(plain.utf8))
        #expect(Hex.decode(encoded.uppercased()) == Array(plain.utf8))
    }

    @Test("every byte value is two lowercase digits and reads back")
    func everyByte() {
        let all = (0...255).map { UInt8($0) }
        let text = Hex.encode(all)
        #expect(text.count == 512)
        #expect(text.hasPrefix("000102"))
        #expect(text.hasSuffix("fdfeff"))
        #expect(text == text.lowercased())
        #expect(Hex.decode(text) == all)
    }

    @Test("odd lengths and non-hex digits are refused", arguments: ["0", "abc", "0g", "g0", " 0", "0x00", "é0"])
    func refused(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
