import Testing
import UMFACBOR

@Suite("Decoding well-formed CBOR")
struct DecodingTests {
    /// The head of an item with `argument`, written with a 1, 2, 4 or 8-byte argument.
    private static func head(major: UInt8, argument: UInt8, width: Int) -> [UInt8] {
        let info: UInt8 = [1: 24, 2: 25, 4: 26, 8: 27][width] ?? 0
        return [major << 5 | info] + Array(repeating: 0, count: width - 1) + [argument]
    }

    @Test("every argument width is accepted for every major type", arguments: [1, 2, 4, 8])
    func argumentWidths(width: Int) throws {
        let decoder = CBORDecoder()
        #expect(try decoder.decode(Self.head(major: 0, argument: 5, width: width)) == .unsigned(5))
        #expect(try decoder.decode(Self.head(major: 1, argument: 5, width: width)) == .negative(5))
        #expect(
            try decoder.decode(Self.head(major: 2, argument: 2, width: width) + [0xca, 0xfe])
                == .byteString([0xca, 0xfe]))
        #expect(try decoder.decode(Self.head(major: 3, argument: 2, width: width) + [0x68, 0x69]) == "hi")
        #expect(try decoder.decode(Self.head(major: 4, argument: 2, width: width) + [0x01, 0x02]) == .array([1, 2]))
        #expect(
            try decoder.decode(Self.head(major: 5, argument: 1, width: width) + [0x01, 0x02]) == .map(CBORMap([1: 2])))
        #expect(try decoder.decode(Self.head(major: 6, argument: 1, width: width) + [0x00]) == .tagged(1, 0))
    }

    @Test("unsigned integers at the edge of each width")
    func unsignedIntegers() throws {
        #expect(try decode("00") == .unsigned(0))
        #expect(try decode("17") == .unsigned(23))
        #expect(try decode("18 18") == .unsigned(24))
        #expect(try decode("18 ff") == .unsigned(255))
        #expect(try decode("19 0100") == .unsigned(256))
        #expect(try decode("19 ffff") == .unsigned(65_535))
        #expect(try decode("1a 00010000") == .unsigned(65_536))
        #expect(try decode("1a ffffffff") == .unsigned(4_294_967_295))
        #expect(try decode("1b 0000000100000000") == .unsigned(4_294_967_296))
        #expect(try decode("1b ffffffffffffffff") == .unsigned(.max))
    }

    @Test("negative integers are -1 - n")
    func negativeIntegers() throws {
        #expect(try decode("20").int64Value == -1)
        #expect(try decode("37").int64Value == -24)
        #expect(try decode("38 18").int64Value == -25)
        #expect(try decode("38 ff").int64Value == -256)
        #expect(try decode("39 0100").int64Value == -257)
        #expect(try decode("3a ffffffff").int64Value == -4_294_967_296)
        #expect(try decode("3b 7fffffffffffffff").int64Value == .min)
        // -2^64 does not fit in Int64 but is still a valid item.
        #expect(try decode("3b ffffffffffffffff") == .negative(.max))
        #expect(try decode("3b ffffffffffffffff").int64Value == nil)
    }

    @Test("half, single and double precision floats widen to Double")
    func floats() throws {
        #expect(try decode("f9 3c00") == .float(1.0))
        #expect(try decode("f9 c400") == .float(-4.0))
        #expect(try decode("f9 7bff") == .float(65_504.0))
        #expect(try decode("f9 0001") == .float(5.960464477539063e-8))
        #expect(try decode("f9 03ff") == .float(6.097555160522461e-05))
        #expect(try decode("f9 7c00") == .float(.infinity))
        #expect(try decode("f9 fc00") == .float(-.infinity))
        guard case .float(let negativeZero) = try decode("f9 8000") else {
            Issue.record("f9 8000 is not a float")
            return
        }
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        guard case .float(let notANumber) = try decode("f9 7e00") else {
            Issue.record("f9 7e00 is not a float")
            return
        }
        #expect(notANumber.isNaN)
        #expect(try decode("fa 47c35000") == .float(100_000.0))
        #expect(try decode("fa 3dcccccd") == .float(Double(Float(0.1))))
        #expect(try decode("fb 3ff199999999999a") == .float(1.1))
        #expect(try decode("fb 7e37e43c8800759c") == .float(1.0e+300))
    }

    @Test("simple values, booleans, null and undefined")
    func simpleValues() throws {
        #expect(try decode("f4") == .boolean(false))
        #expect(try decode("f5") == .boolean(true))
        #expect(try decode("f6") == .null)
        #expect(try decode("f7") == .undefined)
        #expect(try decode("e0") == .simple(0))
        #expect(try decode("f3") == .simple(19))
        #expect(try decode("f8 20") == .simple(32))
        #expect(try decode("f8 ff") == .simple(255))
        #expect(try decode("f5").boolValue == true)
    }

    @Test("byte and text strings, including empty and multi-byte UTF-8")
    func strings() throws {
        #expect(try decode("40") == .byteString([]))
        #expect(try decode("44 01020304").bytesValue == [1, 2, 3, 4])
        #expect(try decode("60") == "")
        #expect(try decode("64 49455446").stringValue == "IETF")
        #expect(try decode("64 f0908591").stringValue == "\u{10151}")
        let long = try decode("59 0100" + String(repeating: "ab", count: 256))
        #expect(long.bytesValue == Array(repeating: 0xab, count: 256))
    }

    @Test("tags wrap the following item, and tags nest")
    func tags() throws {
        #expect(try decode("c1 1a514b67b0") == .tagged(1, .unsigned(1_363_896_240)))
        #expect(try decode("d8 18 45 6449455446") == .tagged(24, .byteString(bytes("6449455446"))))
        #expect(try decode("db ffffffffffffffff f6") == .tagged(.max, .null))
        #expect(try decode("c1 c2 40") == .tagged(1, .tagged(2, .byteString([]))))
    }

    @Test("nested arrays and maps keep their structure and the map keeps received order")
    func nesting() throws {
        #expect(try decode("83 01 82 0203 82 0405") == .array([1, .array([2, 3]), .array([4, 5])]))
        let value = try decode("a3 6161 01 20 a1 6162 80 63616263 f6")
        let map = try #require(value.mapValue)
        #expect(map.entries.map(\.key) == ["a", -1, "abc"])
        #expect(map["a"] == 1)
        #expect(map[-1]?.mapValue?["b"] == .array([]))
        #expect(map["abc"] == .null)
        #expect(map["missing"] == nil)
    }

    @Test("decodePrefix says how many bytes the first item used")
    func decodePrefix() throws {
        let decoder = CBORDecoder()
        // A COSE key followed directly by an extensions map, as in authenticator data.
        let input = bytes("a2 01 02 03 26" + "a1 6b6372656450726f74656374 02")
        let (key, keyLength) = try decoder.decodePrefix(input)
        #expect(key == .map(CBORMap([1: 2, 3: -7])))
        #expect(keyLength == 5)
        let (extensions, extensionsLength) = try decoder.decodePrefix(input[keyLength...])
        #expect(extensions.mapValue?["credProtect"] == 2)
        #expect(keyLength + extensionsLength == input.count)
        // Bytes after the item are not examined, even if they are not CBOR.
        let (zero, used) = try decoder.decodePrefix(bytes("00 ff ff"))
        #expect(zero == 0 && used == 1)
    }

    @Test("decoding a slice that does not start at index zero")
    func sliceInput() throws {
        let input = bytes("ff ff 82 01 02")
        #expect(try CBORDecoder().decode(input[2...]) == .array([1, 2]))
    }
}
