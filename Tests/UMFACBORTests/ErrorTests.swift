import Testing
import UMFACBOR

@Suite("Decoding errors")
struct ErrorTests {
    @Test(
        "input that ends inside an item is truncated (RFC 8949 Appendix F)",
        arguments: [
            "", "18", "19 01", "1a 010203", "1b 01020304050607", "38", "58", "78", "98", "9a 01ff00", "b8", "d8",
            "f8", "f9 00", "fa 000000", "fb 00000000000000", "41", "61", "5a ffffffff 00",
            "5b ffffffffffffffff 010203", "7a ffffffff 00", "7b 7fffffffffffffff 010203", "81",
            "81 81 81 81 81 81 81 81 81", "82 00", "a1", "a2 01 02", "a1 00", "a2 00 00 00", "c0",
        ])
    func truncated(hexText: String) {
        #expect(decodingError(hexText)?.code == .truncated)
    }

    @Test("a header claiming more than the input holds is refused before anything is allocated")
    func hugeLengths() {
        let claims = [
            "9b 8000000000000000 00 00",  // an array of 2^63 items
            "bb 8000000000000000 00 00",  // a map of 2^63 pairs
            "9b ffffffffffffffff 00",  // an array of 2^64 - 1 items
            "5b 0000000100000000 00 00",  // a byte string of 2^32 bytes
            "7b 0000000100000000 61 61",  // a text string of 2^32 bytes
            "9a ffffffff 00",  // an array of 2^32 - 1 items
            "a2 00 00 00",  // a map of two pairs in three bytes
        ]
        for claim in claims {
            let error = decodingError(claim)
            #expect(error?.code == .truncated, "\(claim)")
            // Offset 0 is the header: the claim was checked before reading a single element.
            #expect(error?.offset == 0, "\(claim)")
        }
    }

    @Test("bytes after the item are refused by decode, with their offset")
    func trailingBytes() throws {
        let error = decodingError("00 00")
        #expect(error?.code == .trailingBytes)
        #expect(error?.offset == 1)
        // A break code after a complete item is trailing data, not an indefinite-length item.
        #expect(decodingError("a0 ff")?.code == .trailingBytes)
        #expect(decodingError("83 01 02 03 04")?.offset == 4)
    }

    @Test(
        "indefinite lengths and a bare break code are refused",
        arguments: ["5f", "7f", "9f", "bf", "ff", "81 ff", "a1 ff 00", "a1 00 ff"])
    func indefiniteLength(hexText: String) {
        #expect(decodingError(hexText)?.code == .indefiniteLength)
    }

    @Test("reserved additional information 28-30 is malformed for every major type")
    func reservedAdditionalInformation() {
        for major in UInt8(0)...7 {
            for info in UInt8(28)...30 {
                let initial = major << 5 | info
                #expect(decodingError([initial, 0, 0, 0, 0, 0, 0, 0, 0])?.code == .malformedHeader, "\(initial)")
            }
        }
    }

    @Test("a two-byte simple value below 32 is malformed")
    func twoByteSimpleBelow32() throws {
        for value in UInt8(0)..<32 {
            #expect(decodingError([0xf8, value])?.code == .malformedHeader, "f8 \(value)")
        }
        #expect(try CBORDecoder().decode([0xf8, 32]) == .simple(32))
    }

    @Test("a key that appears twice is a duplicate, even when written differently")
    func duplicateMapKeys() {
        let error = decodingError("a2 01 00 01 00")
        #expect(error?.code == .duplicateMapKey)
        #expect(error?.offset == 3)
        #expect(decodingError("a2 6161 00 6161 01")?.code == .duplicateMapKey)
        #expect(decodingError("a2 01 00 1801 00")?.code == .duplicateMapKey)  // 1, then 1 in a longer head
        #expect(decodingError("a2 f93c00 00 fa3f800000 00")?.code == .duplicateMapKey)  // 1.0 as half and single
        #expect(decodingError("a2 f97e00 00 f97e01 00")?.code == .duplicateMapKey)  // two NaNs
        // The same map as a key twice, with its entries in a different order.
        #expect(decodingError("a2 a2 0102 0304 00 a2 0304 0102 00")?.code == .duplicateMapKey)
        // A nested map may repeat a key of its parent.
        #expect(decodingError("a2 01 a1 01 00 02 00") == nil)
        // 0.0 and -0.0 are different keys.
        #expect(decodingError("a2 f90000 00 f98000 00") == nil)
    }

    @Test(
        "a text string that is not UTF-8 is refused",
        arguments: [
            "62 c328",  // a lead byte without its continuation
            "61 80",  // a lone continuation byte
            "62 c080",  // an overlong encoding of U+0000
            "63 eda080",  // a UTF-16 surrogate
            "64 f4908080",  // above U+10FFFF
            "61 ff",
            "a1 61ff 00",  // as a map key
            "82 6161 61fe",  // inside an array
        ])
    func invalidUTF8(hexText: String) {
        #expect(decodingError(hexText)?.code == .invalidUTF8)
    }

    @Test("nesting deeper than the limit is refused before the input runs out")
    func nestingTooDeep() throws {
        // A hundred nested arrays with nothing at the bottom: depth is checked first.
        #expect(decodingError(Array(repeating: 0x81, count: 100))?.code == .nestingTooDeep)
        // The default limit is 16 levels of arrays, maps or tags.
        #expect(try CBORDecoder().decode(Array(repeating: 0x81, count: 16) + [0]).arrayValue != nil)
        #expect(decodingError(Array(repeating: 0x81, count: 17) + [0])?.code == .nestingTooDeep)
        #expect(decodingError(Array(repeating: 0xc1, count: 17) + [0])?.code == .nestingTooDeep)
        #expect(decodingError(Array(repeating: [0xa1, 0x01], count: 17).flatMap { $0 } + [0])?.code == .nestingTooDeep)
        let shallow = CBORDecoder.Limits(maxDepth: 2)
        #expect(decodingError("81 81 00", limits: shallow) == nil)
        let error = decodingError("81 81 81 00", limits: shallow)
        #expect(error?.code == .nestingTooDeep)
        #expect(error?.offset == 2)
    }

    @Test("more items than the limit are refused")
    func tooManyItems() throws {
        // 16 384 items pass: the array and 16 383 zeros.
        #expect(
            try CBORDecoder().decode(bytes("99 3fff") + Array(repeating: 0, count: 16_383)).arrayValue?.count == 16_383)
        let error = decodingError(bytes("99 4000") + Array(repeating: 0, count: 16_384))
        #expect(error?.code == .tooLarge)
        // Every key, value and tag counts.
        let small = CBORDecoder.Limits(maxItems: 3)
        #expect(decodingError("82 01 02", limits: small) == nil)
        #expect(decodingError("83 01 02 03", limits: small)?.code == .tooLarge)
        #expect(decodingError("a1 01 02", limits: small) == nil)
        #expect(decodingError("a1 01 c1 02", limits: small)?.code == .tooLarge)
    }

    @Test("errors compare by code only and describe code, offset and reason")
    func errorIdentity() {
        let error = CBORError(.truncated, "needed 4 bytes", offset: 7)
        #expect(error == CBORError(.truncated, "something else", offset: 0))
        #expect(error != CBORError(.trailingBytes, "needed 4 bytes", offset: 7))
        #expect(Set([error, CBORError(.truncated, "other", offset: 1)]).count == 1)
        #expect(error.description == "CBOR truncated at byte 7: needed 4 bytes")
        #expect(error.code.rawValue == "truncated")
    }
}
