/// A decoded CBOR data item (RFC 8949), restricted to what WebAuthn and CTAP2 use.
///
/// Maps keep their entries in the order they were received so that a value can be
/// inspected exactly as sent; use ``CBORMap`` subscripts to look keys up.
///
/// Equality follows the CBOR data model rather than `Double`: floats compare by bit pattern, so
/// `0.0` and `-0.0` differ, and every NaN equals every other NaN (which keeps `==` reflexive, as
/// `Hashable` requires). Maps compare regardless of entry order.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`, stored as `n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case byteString([UInt8])
    /// Major type 3: a UTF-8 text string.
    case textString(String)
    /// Major type 4: an array of data items.
    case array([CBORValue])
    /// Major type 5: a map of key/value pairs with unique keys.
    case map(CBORMap)
    /// Major type 6: a tagged data item.
    case tagged(UInt64, CBORValue)
    /// Major type 7: `true` or `false`.
    case boolean(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: an unassigned simple value, 0–19 or 32–255.
    ///
    /// Values 20–23 have their own cases (``boolean(_:)``, ``null``, ``undefined``) and 24–31 are
    /// reserved; the decoder never produces them and the encoder's output for them does not decode
    /// back to `.simple`.
    case simple(UInt8)
    /// Major type 7: a half, single or double precision float, widened to `Double`.
    case float(Double)

    /// Creates an integer item from a signed value.
    public init(_ integer: Int64) {
        if integer >= 0 {
            self = .unsigned(UInt64(integer))
        } else {
            self = .negative(UInt64(-(integer + 1)))
        }
    }

    /// The value as a signed integer, when it is an integer that fits in `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: return nil
        }
    }

    /// The bytes of a byte string, or `nil` for any other item.
    public var bytesValue: [UInt8]? {
        if case .byteString(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string, or `nil` for any other item.
    public var stringValue: String? {
        if case .textString(let text) = self { return text }
        return nil
    }

    /// The map, or `nil` for any other item.
    public var mapValue: CBORMap? {
        if case .map(let map) = self { return map }
        return nil
    }

    /// The elements of an array, or `nil` for any other item.
    public var arrayValue: [CBORValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The value of a boolean, or `nil` for any other item.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }
}

extension CBORValue: ExpressibleByIntegerLiteral {
    /// Creates an integer item from a literal.
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension CBORValue: ExpressibleByStringLiteral {
    /// Creates a text string item from a literal.
    public init(stringLiteral value: String) { self = .textString(value) }
}

extension CBORValue {
    /// Whether two items are the same CBOR data item; see the type's discussion for floats and maps.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let left), .unsigned(let right)): return left == right
        case (.negative(let left), .negative(let right)): return left == right
        case (.byteString(let left), .byteString(let right)): return left == right
        case (.textString(let left), .textString(let right)): return left == right
        case (.array(let left), .array(let right)): return left == right
        case (.map(let left), .map(let right)): return left == right
        case (.tagged(let leftTag, let left), .tagged(let rightTag, let right)):
            return leftTag == rightTag && left == right
        case (.boolean(let left), .boolean(let right)): return left == right
        case (.null, .null), (.undefined, .undefined): return true
        case (.simple(let left), .simple(let right)): return left == right
        case (.float(let left), .float(let right)): return floatKey(left) == floatKey(right)
        default: return false
        }
    }

    /// Hashes the item consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let value): hasher.combine(value)
        case .negative(let value): hasher.combine(value)
        case .byteString(let bytes): hasher.combine(bytes)
        case .textString(let text): hasher.combine(text)
        case .array(let elements): hasher.combine(elements)
        case .map(let map): hasher.combine(map)
        case .tagged(let tag, let inner):
            hasher.combine(tag)
            hasher.combine(inner)
        case .boolean(let flag): hasher.combine(flag)
        case .null, .undefined: break
        case .simple(let value): hasher.combine(value)
        case .float(let value): hasher.combine(Self.floatKey(value))
        }
        hasher.combine(kind)
    }

    /// Distinguishes the cases when hashing.
    private var kind: UInt8 {
        switch self {
        case .unsigned: return 0
        case .negative: return 1
        case .byteString: return 2
        case .textString: return 3
        case .array: return 4
        case .map: return 5
        case .tagged: return 6
        case .boolean: return 7
        case .null: return 8
        case .undefined: return 9
        case .simple: return 10
        case .float: return 11
        }
    }

    /// The bit pattern that identifies a float, with every NaN folded into one.
    private static func floatKey(_ value: Double) -> UInt64 {
        value.isNaN ? Double.nan.bitPattern : value.bitPattern
    }
}
