import Testing
import UMFACBOR

@Suite("CBORValue and CBORMap")
struct ValueTests {
    @Test("signed integers map onto major types 0 and 1 and back")
    func signedIntegers() {
        #expect(CBORValue(0) == .unsigned(0))
        #expect(CBORValue(-1) == .negative(0))
        #expect(CBORValue(Int64.max) == .unsigned(UInt64(Int64.max)))
        #expect(CBORValue(Int64.min) == .negative(UInt64(Int64.max)))
        #expect(CBORValue(-7).int64Value == -7)
        #expect(CBORValue.unsigned(UInt64(Int64.max)).int64Value == .max)
        #expect(CBORValue.unsigned(UInt64(Int64.max) + 1).int64Value == nil)
        #expect(CBORValue.negative(UInt64(Int64.max)).int64Value == .min)
        #expect(CBORValue.negative(UInt64(Int64.max) + 1).int64Value == nil)
        let literal: CBORValue = -25
        #expect(literal == .negative(24))
    }

    @Test("accessors return the payload of their own case only")
    func accessors() {
        let samples: [CBORValue] = [
            .unsigned(1), .byteString([1]), "x", .array([1]), .map(CBORMap([1: 2])), .boolean(true), .null, .float(1),
        ]
        for sample in samples {
            #expect((sample.int64Value != nil) == (sample == .unsigned(1)))
            #expect((sample.bytesValue != nil) == (sample == .byteString([1])))
            #expect((sample.stringValue != nil) == (sample == "x"))
            #expect((sample.arrayValue != nil) == (sample == .array([1])))
            #expect((sample.mapValue != nil) == (sample == .map(CBORMap([1: 2]))))
            #expect((sample.boolValue != nil) == (sample == .boolean(true)))
        }
        #expect(CBORValue.array([1, "a"]).arrayValue == [1, "a"])
    }

    @Test("map subscripts add, replace and remove while keeping insertion order")
    func mapSubscripts() {
        var map = CBORMap()
        map["b"] = 1
        map["a"] = 2
        map[3] = .null
        #expect(map.entries.map(\.key) == ["b", "a", 3])
        map["b"] = 10
        #expect(map.entries.map(\.key) == ["b", "a", 3])
        #expect(map["b"] == 10)
        map["a"] = nil
        #expect(map.entries.map(\.key) == ["b", 3])
        map["missing"] = nil
        #expect(map.count == 2)
        // 1 and "1" and 1.0 are different keys.
        map[1] = 1
        map["1"] = 2
        map[.float(1)] = 3
        #expect(map.count == 5)
        #expect(map[1] == 1 && map["1"] == 2 && map[.float(1)] == 3)
    }

    @Test("a later duplicate replaces an earlier one when building a map")
    func duplicatesInInitialiser() {
        let map = CBORMap([
            CBORMapEntry(key: 1, value: "first"), CBORMapEntry(key: 2, value: 0), CBORMapEntry(key: 1, value: "second"),
        ])
        #expect(map.count == 2)
        #expect(map[1] == "second")
        #expect(map.entries.map(\.key) == [1, 2])
    }

    @Test("maps are equal and hash alike whatever their entry order")
    func mapEquality() {
        let forward = CBORMap([1: "a", 2: "b", 3: .map(CBORMap(["x": 1, "y": 2]))])
        let backward = CBORMap([3: .map(CBORMap(["y": 2, "x": 1])), 2: "b", 1: "a"])
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(Set([CBORValue.map(forward), .map(backward)]).count == 1)
        #expect(forward != CBORMap([1: "a", 2: "b"]))
        #expect(forward != CBORMap([1: "a", 2: "c", 3: .map(CBORMap(["x": 1, "y": 2]))]))
        #expect(CBORMap([1: 2]) != CBORMap([2: 1]))
        // Arrays stay ordered.
        #expect(CBORValue.array([1, 2]) != .array([2, 1]))
    }

    @Test("floats compare by bit pattern, with every NaN equal")
    func floatEquality() {
        let nan = CBORValue.float(.nan)
        #expect(nan == nan)
        #expect(nan == .float(Double(bitPattern: 0x7ff8_0000_0000_0001)))
        #expect(nan == .float(-.nan))
        #expect(nan.hashValue == CBORValue.float(Double(bitPattern: 0x7ff8_0000_0000_0001)).hashValue)
        #expect(Set([nan, .float(.nan), .float(.signalingNaN)]).count == 1)
        #expect(CBORValue.float(0.0) != .float(-0.0))
        #expect(CBORValue.float(1.5) == .float(1.5))
        #expect(CBORValue.float(1) != .unsigned(1))
    }

    @Test("cases with equal payloads are still different items")
    func caseIdentity() {
        #expect(CBORValue.unsigned(0) != .negative(0))
        #expect(CBORValue.byteString(Array("a".utf8)) != "a")
        #expect(CBORValue.simple(20) != .boolean(false))
        #expect(CBORValue.null != .undefined)
        #expect(CBORValue.tagged(1, 0) != .tagged(2, 0))
        #expect(CBORValue.tagged(1, 0) != .tagged(1, 1))
        let distinct: Set<CBORValue> = [
            .unsigned(0), .negative(0), .simple(0), .float(0), .tagged(0, 0), .null, .undefined,
        ]
        #expect(distinct.count == 7)
    }
}
