/// A bounds-checked cursor over bytes for fixed binary layouts such as authenticator data.
///
/// Every read throws ``ByteReader/OutOfBounds`` instead of trapping when the input is short.
public struct ByteReader: Sendable {
    /// Thrown when a read needs more bytes than remain.
    public struct OutOfBounds: Error, Sendable, Hashable {
        /// How many bytes the read needed.
        public let needed: Int
        /// How many bytes remained.
        public let remaining: Int
        /// Where the read started.
        public let offset: Int
    }

    /// The bytes being read.
    public let bytes: [UInt8]
    /// The position of the next read.
    public private(set) var offset: Int = 0

    /// Creates a reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// How many bytes have not been read yet.
    public var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// Reads `count` bytes.
    public mutating func read(_ count: Int) throws(OutOfBounds) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw OutOfBounds(needed: count, remaining: remaining, offset: offset)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// Reads one byte.
    public mutating func readUInt8() throws(OutOfBounds) -> UInt8 {
        try read(1)[0]
    }

    /// Reads a big-endian 16-bit unsigned integer.
    public mutating func readUInt16() throws(OutOfBounds) -> UInt16 {
        try read(2).reduce(0) { ($0 << 8) | UInt16($1) }
    }

    /// Reads a big-endian 32-bit unsigned integer.
    public mutating func readUInt32() throws(OutOfBounds) -> UInt32 {
        try read(4).reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// Reads every remaining byte.
    public mutating func readRemaining() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Moves the cursor forward by `count` bytes.
    public mutating func skip(_ count: Int) throws(OutOfBounds) {
        guard count >= 0, count <= remaining else {
            throw OutOfBounds(needed: count, remaining: remaining, offset: offset)
        }
        offset += count
    }
}
