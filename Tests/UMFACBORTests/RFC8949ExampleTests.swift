import Testing
import UMFACBOR

/// One row of RFC 8949 Appendix A: the encoded bytes, the value, and what the encoder writes for
/// that value when it differs from the example (the non-preferred float encodings).
struct RFCExample: Sendable, CustomTestStringConvertible {
    let hex: String
    let value: CBORValue
    let reencoded: String?

    init(_ hex: String, _ value: CBORValue, reencoded: String? = nil) {
        self.hex = hex
        self.value = value
        self.reencoded = reencoded
    }

    var testDescription: String { hex }
}

/// RFC 8949 Appendix A, "Examples of Encoded CBOR Data Items", except the indefinite-length
/// rows, which ``ErrorTests`` expects to be refused.
let rfc8949Examples: [RFCExample] = [
    RFCExample("00", 0),
    RFCExample("01", 1),
    RFCExample("0a", 10),
    RFCExample("17", 23),
    RFCExample("1818", 24),
    RFCExample("1819", 25),
    RFCExample("1864", 100),
    RFCExample("1903e8", 1000),
    RFCExample("1a000f4240", 1_000_000),
    RFCExample("1b000000e8d4a51000", 1_000_000_000_000),
    RFCExample("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
    RFCExample("c249010000000000000000", .tagged(2, .byteString([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
    RFCExample("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)),
    RFCExample("c349010000000000000000", .tagged(3, .byteString([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
    RFCExample("20", -1),
    RFCExample("29", -10),
    RFCExample("3863", -100),
    RFCExample("3903e7", -1000),
    RFCExample("f90000", .float(0.0)),
    RFCExample("f98000", .float(-0.0)),
    RFCExample("f93c00", .float(1.0)),
    RFCExample("fb3ff199999999999a", .float(1.1)),
    RFCExample("f93e00", .float(1.5)),
    RFCExample("f97bff", .float(65504.0)),
    RFCExample("fa47c35000", .float(100000.0)),
    RFCExample("fa7f7fffff", .float(3.4028234663852886e+38)),
    RFCExample("fb7e37e43c8800759c", .float(1.0e+300)),
    RFCExample("f90001", .float(5.960464477539063e-8)),
    RFCExample("f90400", .float(0.00006103515625)),
    RFCExample("f9c400", .float(-4.0)),
    RFCExample("fbc010666666666666", .float(-4.1)),
    RFCExample("f97c00", .float(.infinity)),
    RFCExample("f97e00", .float(.nan)),
    RFCExample("f9fc00", .float(-.infinity)),
    RFCExample("fa7f800000", .float(.infinity), reencoded: "f97c00"),
    RFCExample("fa7fc00000", .float(.nan), reencoded: "f97e00"),
    RFCExample("faff800000", .float(-.infinity), reencoded: "f9fc00"),
    RFCExample("fb7ff0000000000000", .float(.infinity), reencoded: "f97c00"),
    RFCExample("fb7ff8000000000000", .float(.nan), reencoded: "f97e00"),
    RFCExample("fbfff0000000000000", .float(-.infinity), reencoded: "f9fc00"),
    RFCExample("f4", .boolean(false)),
    RFCExample("f5", .boolean(true)),
    RFCExample("f6", .null),
    RFCExample("f7", .undefined),
    RFCExample("f0", .simple(16)),
    RFCExample("f8ff", .simple(255)),
    RFCExample("c074323031332d30332d32315432303a30343a30305a", .tagged(0, "2013-03-21T20:04:00Z")),
    RFCExample("c11a514b67b0", .tagged(1, 1_363_896_240)),
    RFCExample("c1fb41d452d9ec200000", .tagged(1, .float(1363896240.5))),
    RFCExample("d74401020304", .tagged(23, .byteString([1, 2, 3, 4]))),
    RFCExample("d818456449455446", .tagged(24, .byteString(Array("dIETF".utf8)))),
    RFCExample(
        "d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, "http://www.example.com")),
    RFCExample("40", .byteString([])),
    RFCExample("4401020304", .byteString([1, 2, 3, 4])),
    RFCExample("60", ""),
    RFCExample("6161", "a"),
    RFCExample("6449455446", "IETF"),
    RFCExample("62225c", "\"\\"),
    RFCExample("62c3bc", "\u{00fc}"),
    RFCExample("63e6b0b4", "\u{6c34}"),
    RFCExample("64f0908591", "\u{10151}"),
    RFCExample("80", .array([])),
    RFCExample("83010203", .array([1, 2, 3])),
    RFCExample("8301820203820405", .array([1, .array([2, 3]), .array([4, 5])])),
    RFCExample(
        "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
        .array((1...25).map { CBORValue(Int64($0)) })),
    RFCExample("a0", .map(CBORMap())),
    RFCExample("a201020304", .map(CBORMap([1: 2, 3: 4]))),
    RFCExample("a26161016162820203", .map(CBORMap(["a": 1, "b": .array([2, 3])]))),
    RFCExample("826161a161626163", .array(["a", .map(CBORMap(["b": "c"]))])),
    RFCExample(
        "a56161614161626142616361436164614461656145",
        .map(CBORMap(["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]))),
]

@Suite("RFC 8949 Appendix A examples")
struct RFC8949ExampleTests {
    @Test("decodes to the listed value", arguments: rfc8949Examples)
    func decodes(example: RFCExample) throws {
        #expect(try decode(example.hex) == example.value)
    }

    @Test("encodes to the listed bytes, or to the preferred float encoding", arguments: rfc8949Examples)
    func encodes(example: RFCExample) {
        #expect(hex(CBOREncoder.encode(example.value)) == (example.reencoded ?? example.hex))
    }

    @Test(
        "indefinite-length examples are refused",
        arguments: [
            "5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "9f018202039f0405ffff",
            "9f01820203820405ff", "83018202039f0405ff", "83019f0203ff820405",
            "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", "bf61610161629f0203ffff",
            "826161bf61626163ff", "bf6346756ef563416d7421ff",
        ])
    func indefiniteExamples(hexText: String) {
        #expect(decodingError(hexText)?.code == .indefiniteLength)
    }
}
