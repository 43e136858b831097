import Foundation
import Testing
import UMFAEncoding

/// Random UUIDs (trace ids, token ids): version 4 text that Foundation reads back as the same
/// UUID, and not a pattern.
struct SecureRandomUUIDTests {
    @Test func isVersionFourTextThatFoundationReads() throws {
        for _ in 0..<2000 {
            let text = SecureRandom.uuidString()
            let uuid = try #require(UUID(uuidString: text))
            #expect(uuid.uuidString.lowercased() == text)
            let bytes = Array(text.utf8)
            #expect(bytes.count == 36)
            #expect([8, 13, 18, 23].allSatisfy { bytes[$0] == UInt8(ascii: "-") })
            // RFC 9562 §4.1 and §4.2: the variant 0b10xx, the version 4.
            #expect(bytes[14] == UInt8(ascii: "4"))
            #expect("89ab".utf8.contains(bytes[19]))
            #expect(text == text.lowercased())
        }
    }

    /// Every random hex digit takes every value about equally often, and no two repeat.
    @Test func digitsAreSpreadAndIdsDistinct() {
        var seen = Set<String>()
        var counts = [Character: Int]()
        for _ in 0..<4000 {
            let text = SecureRandom.uuidString()
            seen.insert(text)
            for (index, character) in text.enumerated() where ![8, 13, 14, 18, 19, 23].contains(index) {
                counts[character, default: 0] += 1
            }
        }
        #expect(seen.count == 4000)
        // 29 random digits × 4,000 / 16 = 7,250 expected each; the bounds are far outside chance.
        #expect(counts.count == 16 && counts.values.allSatisfy { (6500...8000).contains($0) }, "\(counts)")
    }

    /// The byte-by-byte writer against Foundation's text of the same 16 bytes.
    @Test func textMatchesFoundation() {
        for _ in 0..<2000 {
            let bytes = SecureRandom.bytes(16)
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(UUIDText.lowercase(bytes) == uuid.uuidString.lowercased())
        }
        #expect(UUIDText.lowercase([UInt8](repeating: 0xFF, count: 16)) == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }
}
