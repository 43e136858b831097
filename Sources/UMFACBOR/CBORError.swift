/// Why CBOR bytes could not be decoded.
///
/// Errors compare by ``code`` only, so tests can match the kind of failure while logs keep
/// the byte offset and the explanation.
public struct CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of CBOR decoding failure.
    public enum Code: String, Sendable, Hashable {
        /// The input ended inside a data item.
        case truncated
        /// Bytes remained after the single top-level item.
        case trailingBytes
        /// An indefinite-length item (additional information 31), which WebAuthn never uses.
        case indefiniteLength
        /// A reserved additional-information value (28–30) or a malformed simple value.
        case malformedHeader
        /// A map contained the same key twice.
        case duplicateMapKey
        /// A text string was not valid UTF-8.
        case invalidUTF8
        /// Items nested deeper than the decoder's limit.
        case nestingTooDeep
        /// More data items, or a longer string, than the decoder's limit allows.
        case tooLarge
    }

    /// The kind of failure.
    public let code: Code
    /// A human explanation, including where it happened.
    public let message: String
    /// The byte offset at which the failure was detected.
    public let offset: Int

    /// Creates an error.
    public init(_ code: Code, _ message: String, offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// A description naming the code, the explanation and the offset.
    public var description: String { "CBOR \(code.rawValue) at byte \(offset): \(message)" }

    /// Compares by code only.
    public static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
