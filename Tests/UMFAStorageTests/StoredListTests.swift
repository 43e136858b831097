import Foundation
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// Stored lists (`origins`, `transports`, …): the direct reading of the plain spelling must
/// never answer what JSON would not.
@Suite("Stored lists")
struct StoredListTests {
    static let samples: [[String]] = [
        [], [""], ["usb", "nfc", "internal"], ["https://shop.example", "https://www.shop.example:8443"],
        ["a,b", "[x]", "é", "日本"], ["quote\"inside", "back\\slash", "tab\there", "line\nbreak"], ["", "", "x"],
    ]

    @Test("what json(_:) writes reads back the same, plain or escaped")
    func roundTrip() throws {
        for list in Self.samples {
            #expect(try StoredValue.list(StoredValue.json(list)) == list)
        }
        #expect(
            StoredValue.plainList(StoredValue.json(["usb", "nfc"])) == ["usb", "nfc"],
            "the plain spelling is read directly")
        #expect(StoredValue.plainList(StoredValue.json(["quote\"inside"])) == nil, "an escape goes to the decoder")
        let origins = ["https://shop.example", "a/b"]
        #expect(StoredValue.plainList(StoredValue.json(origins)) == origins, "an escaped slash is read directly")
        #expect(StoredValue.plainList(#"["back\\/slash"]"#) == nil, "an escaped backslash before a slash is not one")
    }

    @Test("on 100,000 seeded mutations, the direct reading agrees with JSONDecoder whenever it answers")
    func agreesWithDecoder() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let alphabet = Array("[]\",\\/ ab\u{1}é".utf8)
        var answered = 0
        for round in 0..<100_000 {
            var bytes = Array(StoredValue.json(Self.samples[round % Self.samples.count]).utf8)
            for _ in 0...(round % 3) {
                let position = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                case 1 where position < bytes.count: bytes.remove(at: position)
                default:
                    if position < bytes.count { bytes[position] = alphabet.randomElement(using: &generator)! }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let direct = StoredValue.plainList(text) else { continue }
            answered += 1
            let decoded = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
            #expect(direct == decoded, "\(text)")
        }
        #expect(answered > 10_000, "mutations reach the direct reading often enough to mean something")
    }
}
