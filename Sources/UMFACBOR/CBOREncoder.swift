/// Encodes ``CBORValue`` items in the CTAP2 canonical form (CTAP 2.1 §8, "CTAP2 canonical CBOR
/// encoding form"): shortest-form integers and lengths, definite lengths, and map keys sorted by
/// major type, then by the length of their encoding, then bytewise. For integer, string and
/// simple-value keys this equals the bytewise order of RFC 8949 §4.2.1.
///
/// A ``CBORValue`` does not remember how a float was encoded, so floats are written in the
/// shortest of half, single and double precision that holds the value exactly (RFC 8949 §4.2.2
/// preferred serialization), and every NaN as `f9 7e00`.
public enum CBOREncoder {
    /// Returns the canonical encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        append(value, to: &output)
        return output
    }

    static func append(_ value: CBORValue, to output: inout [UInt8]) {
        switch value {
        case .unsigned(let number): appendHeader(major: 0, argument: number, to: &output)
        case .negative(let number): appendHeader(major: 1, argument: number, to: &output)
        case .byteString(let bytes):
            appendHeader(major: 2, argument: UInt64(bytes.count), to: &output)
            output += bytes
        case .textString(let text):
            let utf8 = Array(text.utf8)
            appendHeader(major: 3, argument: UInt64(utf8.count), to: &output)
            output += utf8
        case .array(let elements):
            appendHeader(major: 4, argument: UInt64(elements.count), to: &output)
            for element in elements { append(element, to: &output) }
        case .map(let map):
            appendHeader(major: 5, argument: UInt64(map.count), to: &output)
            let encoded = map.entries.map { (key: encode($0.key), value: encode($0.value)) }
            for entry in encoded.sorted(by: { canonicalOrder($0.key, $1.key) }) {
                output += entry.key
                output += entry.value
            }
        case .tagged(let tag, let inner):
            appendHeader(major: 6, argument: tag, to: &output)
            append(inner, to: &output)
        case .boolean(let flag): output.append(flag ? 0xf5 : 0xf4)
        case .null: output.append(0xf6)
        case .undefined: output.append(0xf7)
        case .simple(let simple):
            if simple < 24 {
                output.append(0xe0 | simple)
            } else {
                output += [0xf8, simple]
            }
        case .float(let double): appendFloat(double, to: &output)
        }
    }

    static func appendHeader(major: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let high = major << 5
        switch argument {
        case 0..<24: output.append(high | UInt8(argument))
        case 24...0xff: output += [high | 24, UInt8(argument)]
        case 0x100...0xffff:
            output.append(high | 25)
            appendBigEndian(argument, byteCount: 2, to: &output)
        case 0x1_0000...0xffff_ffff:
            output.append(high | 26)
            appendBigEndian(argument, byteCount: 4, to: &output)
        default:
            output.append(high | 27)
            appendBigEndian(argument, byteCount: 8, to: &output)
        }
    }

    static func appendBigEndian(_ value: UInt64, byteCount: Int, to output: inout [UInt8]) {
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            output.append(UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
        }
    }

    /// Writes a float in the shortest precision that holds it exactly.
    static func appendFloat(_ double: Double, to output: inout [UInt8]) {
        if double.isNaN {
            output += [0xf9, 0x7e, 0x00]
            return
        }
        let single = Float(double)
        guard Double(single).bitPattern == double.bitPattern else {
            output.append(0xfb)
            appendBigEndian(double.bitPattern, byteCount: 8, to: &output)
            return
        }
        if let half = Float16Bits(exactly: single) {
            output.append(0xf9)
            appendBigEndian(UInt64(half.bits), byteCount: 2, to: &output)
        } else {
            output.append(0xfa)
            appendBigEndian(UInt64(single.bitPattern), byteCount: 4, to: &output)
        }
    }

    /// CTAP2 canonical key order of two encoded keys: lower major type first, then shorter
    /// encodings, then bytewise lexicographic.
    static func canonicalOrder(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let lhsMajor = lhs.first.map { $0 >> 5 } ?? 0
        let rhsMajor = rhs.first.map { $0 >> 5 } ?? 0
        if lhsMajor != rhsMajor { return lhsMajor < rhsMajor }
        if lhs.count != rhs.count { return lhs.count < rhs.count }
        return lhs.lexicographicallyPrecedes(rhs)
    }
}
