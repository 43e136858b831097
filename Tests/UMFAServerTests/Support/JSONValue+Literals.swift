import UMFAWebAuthn

// Literals for request bodies in tests only.
extension JSONValue: ExpressibleByStringLiteral {
    /// A JSON string from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}
