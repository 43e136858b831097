/// Decodes CBOR (RFC 8949) as WebAuthn and CTAP2 use it: definite lengths only, unique map
/// keys, bounded depth and size, and no bytes left over.
///
/// The decoder never traps on hostile input: every length is checked against the bytes that
/// remain before anything is allocated, so a header that claims a huge array costs nothing.
public struct CBORDecoder: Sendable {
    /// Bounds that protect the decoder from hostile input.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays, maps and tags accepted.
        public var maxDepth: Int
        /// The largest number of data items in one decode.
        public var maxItems: Int

        /// Creates limits.
        public init(maxDepth: Int = 16, maxItems: Int = 16_384) {
            self.maxDepth = maxDepth
            self.maxItems = maxItems
        }
    }

    /// The limits in force.
    public let limits: Limits

    /// Creates a decoder with the given limits.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes exactly one data item that must span all of `bytes`.
    public func decode(_ bytes: some Collection<UInt8>) throws(CBORError) -> CBORValue {
        let (value, consumed) = try decodePrefix(bytes)
        if consumed != bytes.count {
            throw CBORError(
                .trailingBytes, "\(bytes.count - consumed) bytes follow the data item", offset: consumed)
        }
        return value
    }

    /// Decodes one data item at the start of `bytes` and says how many bytes it used.
    ///
    /// Authenticator data needs this: the credential public key is followed directly by the
    /// extensions map.
    public func decodePrefix(_ bytes: some Collection<UInt8>) throws(CBORError) -> (CBORValue, Int) {
        var state = State(bytes: Array(bytes), limits: limits)
        let value = try state.readItem(depth: 0)
        return (value, state.offset)
    }
}

extension CBORDecoder {
    fileprivate struct State {
        let bytes: [UInt8]
        let limits: Limits
        var offset = 0
        var items = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        var remaining: Int { bytes.count - offset }

        mutating func readByte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else {
                throw CBORError(.truncated, "input ended where a byte was expected", offset: offset)
            }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func readBytes(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= remaining else {
                throw CBORError(
                    .truncated, "needed \(count) bytes, only \(remaining) remain", offset: offset)
            }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func readUInt(byteCount: Int) throws(CBORError) -> UInt64 {
            var value: UInt64 = 0
            for byte in try readBytes(byteCount) {
                value = (value << 8) | UInt64(byte)
            }
            return value
        }

        /// Reads the argument that follows an initial byte's additional information.
        mutating func readArgument(_ info: UInt8, start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0...23: return UInt64(info)
            case 24: return try readUInt(byteCount: 1)
            case 25: return try readUInt(byteCount: 2)
            case 26: return try readUInt(byteCount: 4)
            case 27: return try readUInt(byteCount: 8)
            case 31:
                throw CBORError(.indefiniteLength, "indefinite-length items are not accepted", offset: start)
            default:
                throw CBORError(.malformedHeader, "reserved additional information \(info)", offset: start)
            }
        }

        /// Checks that `count` items or bytes could still fit in the input before allocating.
        func checkLength(_ length: UInt64, minimumBytesEach: Int, start: Int) throws(CBORError) -> Int {
            guard length <= UInt64(remaining / max(minimumBytesEach, 1)) else {
                throw CBORError(
                    .truncated, "length \(length) exceeds the \(remaining) bytes that remain", offset: start)
            }
            return Int(length)
        }

        mutating func countItem(start: Int) throws(CBORError) {
            items += 1
            if items > limits.maxItems {
                throw CBORError(.tooLarge, "more than \(limits.maxItems) data items", offset: start)
            }
        }

        mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
            let start = offset
            try countItem(start: start)
            let initial = try readByte()
            let major = initial >> 5
            let info = initial & 0x1f
            if major == 7 { return try readSimple(info, start: start) }
            let argument = try readArgument(info, start: start)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2:
                let length = try checkLength(argument, minimumBytesEach: 1, start: start)
                return .byteString(Array(try readBytes(length)))
            case 3:
                let length = try checkLength(argument, minimumBytesEach: 1, start: start)
                let raw = try readBytes(length)
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw CBORError(.invalidUTF8, "text string is not valid UTF-8", offset: start)
                }
                return .textString(text)
            case 4:
                try checkDepth(depth, start: start)
                let count = try checkLength(argument, minimumBytesEach: 1, start: start)
                var elements: [CBORValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(try readItem(depth: depth + 1)) }
                return .array(elements)
            case 5:
                try checkDepth(depth, start: start)
                return .map(try readMap(argument, depth: depth, start: start))
            default:  // major type 6
                try checkDepth(depth, start: start)
                return .tagged(argument, try readItem(depth: depth + 1))
            }
        }

        func checkDepth(_ depth: Int, start: Int) throws(CBORError) {
            if depth >= limits.maxDepth {
                throw CBORError(.nestingTooDeep, "nesting deeper than \(limits.maxDepth)", offset: start)
            }
        }

        mutating func readMap(_ argument: UInt64, depth: Int, start: Int) throws(CBORError) -> CBORMap {
            let count = try checkLength(argument, minimumBytesEach: 2, start: start)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var seen = Set<CBORValue>()
            for _ in 0..<count {
                let keyOffset = offset
                let key = try readItem(depth: depth + 1)
                guard seen.insert(key).inserted else {
                    throw CBORError(.duplicateMapKey, "map key \(key) appears twice", offset: keyOffset)
                }
                entries.append(CBORMapEntry(key: key, value: try readItem(depth: depth + 1)))
            }
            return CBORMap(uniqueEntries: entries)
        }

        mutating func readSimple(_ info: UInt8, start: Int) throws(CBORError) -> CBORValue {
            switch info {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 23: return .undefined
            case 0...19: return .simple(info)
            case 24:
                let value = try readByte()
                guard value >= 32 else {
                    throw CBORError(.malformedHeader, "simple value \(value) must use one byte", offset: start)
                }
                return .simple(value)
            case 25: return .float(Double(Float16Bits(UInt16(try readUInt(byteCount: 2))).value))
            case 26: return .float(Double(Float(bitPattern: UInt32(try readUInt(byteCount: 4)))))
            case 27: return .float(Double(bitPattern: try readUInt(byteCount: 8)))
            case 31:
                throw CBORError(.indefiniteLength, "unexpected break code", offset: start)
            default:
                throw CBORError(.malformedHeader, "reserved simple value encoding \(info)", offset: start)
            }
        }
    }
}
