/// A decoded CBOR data item (RFC 8949), restricted to what WebAuthn and CTAP2 use.
///
/// Maps keep their entries in the order they were received so that a value can be
/// inspected exactly as sent; use ``CBORMap`` subscripts to look keys up.
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
    /// Major type 7: an unassigned simple value.
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

/// One key/value pair of a ``CBORMap``.
public struct CBORMapEntry: Sendable, Hashable {
    /// The entry's key.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates an entry.
    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

/// A CBOR map that keeps its entries in received order.
public struct CBORMap: Sendable, Hashable {
    /// The entries in the order they were decoded or added.
    public internal(set) var entries: [CBORMapEntry]

    /// Creates a map from entries; later duplicates replace earlier ones.
    public init(_ entries: [CBORMapEntry] = []) {
        self.entries = []
        for entry in entries { self[entry.key] = entry.value }
    }

    /// Creates a map from key/value pairs; later duplicates replace earlier ones.
    public init(_ pairs: KeyValuePairs<CBORValue, CBORValue>) {
        self.init(pairs.map { CBORMapEntry(key: $0.key, value: $0.value) })
    }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Looks a key up, or sets or removes its value.
    public subscript(key: CBORValue) -> CBORValue? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append(CBORMapEntry(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

}
