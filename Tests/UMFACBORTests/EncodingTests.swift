import Testing
import UMFACBOR
import UMFATestSupport

@Suite("CTAP2 canonical encoding")
struct EncodingTests {
    @Test("integers use the shortest head")
    func shortestIntegers() {
        let cases: [(CBORValue, String)] = [
            (0, "00"), (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"), (65_535, "19ffff"),
            (65_536, "1a00010000"), (4_294_967_295, "1affffffff"), (4_294_967_296, "1b0000000100000000"),
            (.unsigned(.max), "1bffffffffffffffff"),
            (-1, "20"), (-24, "37"), (-25, "3818"), (-256, "38ff"), (-257, "390100"), (-65_536, "39ffff"),
            (-65_537, "3a00010000"), (-4_294_967_296, "3affffffff"), (-4_294_967_297, "3b0000000100000000"),
            (CBORValue(Int64.min), "3b7fffffffffffffff"), (.negative(.max), "3bffffffffffffffff"),
        ]
        for (value, expected) in cases {
            #expect(hex(CBOREncoder.encode(value)) == expected, "\(value)")
        }
    }

    @Test("lengths of strings, arrays and maps and tag numbers use the shortest head")
    func shortestLengths() {
        #expect(CBOREncoder.encode(.byteString(Array(repeating: 7, count: 23))).prefix(1) == [0x57])
        #expect(CBOREncoder.encode(.byteString(Array(repeating: 7, count: 24))).prefix(2) == [0x58, 24])
        #expect(CBOREncoder.encode(.byteString(Array(repeating: 7, count: 256))).prefix(3) == [0x59, 1, 0])
        #expect(
            CBOREncoder.encode(.byteString(Array(repeating: 7, count: 65_536))).prefix(5) == [0x5a, 0, 1, 0, 0])
        #expect(CBOREncoder.encode(.textString(String(repeating: "x", count: 24))).prefix(2) == [0x78, 24])
        #expect(CBOREncoder.encode(.array(Array(repeating: 0, count: 24))).prefix(2) == [0x98, 24])
        let bigMap = CBORMap((0..<24).map { CBORMapEntry(key: CBORValue(Int64($0)), value: .null) })
        #expect(CBOREncoder.encode(.map(bigMap)).prefix(2) == [0xb8, 24])
        #expect(hex(CBOREncoder.encode(.tagged(24, .null))) == "d818f6")
        #expect(hex(CBOREncoder.encode(.tagged(65_536, .null))) == "da00010000f6")
    }

    @Test("a COSE key's labels 1, 3, -1, -2, -3 are written in that order")
    func coseKeyOrder() throws {
        let x = [UInt8](repeating: 0x11, count: 32)
        let y = [UInt8](repeating: 0x22, count: 32)
        // Inserted out of order on purpose.
        let key = CBORMap([-3: .byteString(y), 1: 2, -1: 1, 3: -7, -2: .byteString(x)])
        let encoded = CBOREncoder.encode(.map(key))
        let expected = bytes("a5 01 02 03 26 20 01 21 5820" + hex(x) + "22 5820" + hex(y))
        #expect(encoded == expected)
        #expect(
            hex(CBOREncoder.encode(.map(CBORMap([-1: 0, -3: 0, 3: 0, -2: 0, 1: 0])))) == "a50100030020002100" + "2200")
    }

    @Test("keys of one major type sort by encoded length, then bytewise")
    func lengthFirstWithinMajorType() {
        let strings = CBORMap(["aa": 0, "b": 0, "a": 0, "": 0])
        #expect(hex(CBOREncoder.encode(.map(strings))) == "a4" + "6000" + "616100" + "616200" + "62616100")
        let integers = CBORMap([256: 0, 24: 0, 255: 0, 23: 0])
        #expect(hex(CBOREncoder.encode(.map(integers))) == "a4" + "1700" + "181800" + "18ff00" + "19010000")
        let negatives = CBORMap([-25: 0, -24: 0, -1: 0])
        #expect(hex(CBOREncoder.encode(.map(negatives))) == "a3" + "2000" + "3700" + "381800")
    }

    @Test("keys of different major types sort by major type before length (CTAP 2.1 §8)")
    func majorTypeFirst() {
        // Length-first ordering (RFC 8949 §4.2.3) would put -1 (one byte) before 1000 (three bytes).
        let map = CBORMap([.boolean(false): 0, "a": 0, .byteString([0]): 0, -1: 0, 1000: 0])
        #expect(hex(CBOREncoder.encode(.map(map))) == "a5" + "1903e800" + "2000" + "410000" + "616100" + "f400")
        let mixed = CBORMap(["a": 0, 1000: 0])
        #expect(hex(CBOREncoder.encode(.map(mixed))) == "a2" + "1903e800" + "616100")
    }

    @Test("nested maps are sorted too, and insertion order never changes the bytes")
    func insertionOrderIndependent() {
        let forward = CBORMap(["z": .map(CBORMap([2: 0, 1: 0])), .array([1]): 0, "y": 1])
        let backward = CBORMap(["y": 1, .array([1]): 0, "z": .map(CBORMap([1: 0, 2: 0]))])
        let encoded = CBOREncoder.encode(.map(forward))
        #expect(encoded == CBOREncoder.encode(.map(backward)))
        #expect(hex(encoded) == "a3" + "617901" + "617a" + "a2" + "0100" + "0200" + "810100")
    }

    @Test("every non-NaN half-precision float re-encodes to the same three bytes")
    func halfPrecisionRoundTrip() throws {
        let decoder = CBORDecoder()
        for bits in UInt16.min...UInt16.max {
            let input: [UInt8] = [0xf9, UInt8(bits >> 8), UInt8(bits & 0xff)]
            let isNaN = bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0
            let reencoded = CBOREncoder.encode(try decoder.decode(input))
            if reencoded != (isNaN ? [0xf9, 0x7e, 0x00] : input) {
                Issue.record("f9 \(hex(Array(input.dropFirst()))) re-encoded as \(hex(reencoded))")
                return
            }
        }
    }

    @Test("floats use the shortest precision that holds them exactly")
    func shortestFloats() throws {
        let cases: [(String, String)] = [
            ("fa3f800000", "f93c00"),  // 1.0 fits in a half
            ("fb3ff0000000000000", "f93c00"),
            ("fa33800000", "f90001"),  // 2^-24, the smallest half subnormal
            ("fa387fc000", "f903ff"),  // the largest half subnormal
            ("fa477fe000", "f97bff"),  // 65504, the largest half
            ("fa477ff000", "fa477ff000"),  // 65520 needs a single
            ("fa33000000", "fa33000000"),  // 2^-25 is below every half
            ("fa3eaaaaab", "fa3eaaaaab"),
            ("fb40effc0000000000", "f97bff"),
            ("fb3fd5555555555555", "fb3fd5555555555555"),  // 1/3 needs a double
            ("fb3ff0000000000001", "fb3ff0000000000001"),
            ("fb3e60000000000000", "fa33000000"),
            ("fb8000000000000000", "f98000"),  // -0.0 keeps its sign
            ("fb7ff8000000000001", "f97e00"),  // NaN payloads collapse to the canonical NaN
        ]
        for (input, expected) in cases {
            let value = try decode(input)
            #expect(hex(CBOREncoder.encode(value)) == expected, "\(input)")
            #expect(try decode(expected) == value, "\(input)")
        }
    }

    @Test("random single-precision floats keep their value and never grow")
    func randomSingles() throws {
        var generator = SeededGenerator(seed: 0x5EED_F10A)
        for _ in 0..<20_000 {
            let bits = UInt32.random(in: .min ... .max, using: &generator)
            let input = [0xfa] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (24 - 8 * $0)) }
            let value = try CBORDecoder().decode(input)
            let reencoded = CBOREncoder.encode(value)
            let stable = try CBORDecoder().decode(reencoded) == value && reencoded.count <= 5
            let unchangedUnlessShorter = reencoded.count < 5 || reencoded == input || Float(bitPattern: bits).isNaN
            if !stable || !unchangedUnlessShorter {
                Issue.record("\(hex(input)) re-encoded as \(hex(reencoded))")
                return
            }
        }
    }

    @Test("encoding then decoding gives back an equal value")
    func roundTrip() throws {
        let value: CBORValue = .map(
            CBORMap([
                "fmt": "packed",
                "attStmt": .map(
                    CBORMap(["alg": -7, "sig": .byteString([0x30, 0x45]), "x5c": .array([.byteString([1])])])),
                "numbers": .array([0, 23, 24, -1, -25, .unsigned(.max), .negative(.max), .float(2.5), .float(-0.0)]),
                -2: .tagged(1_000_000, .array([.null, .undefined, .boolean(true), .simple(19), .simple(200)])),
                .byteString([]): .map(CBORMap()),
                "text": "😀 ü 水",
            ]))
        let encoded = CBOREncoder.encode(value)
        let decoded = try CBORDecoder().decode(encoded)
        #expect(decoded == value)
        #expect(CBOREncoder.encode(decoded) == encoded)
    }
}
