import UMFAEncoding

// Literals for request bodies, in the test targets only.
extension JSONValue: ExpressibleByStringLiteral {
    /// A JSON string from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// A JSON object from a literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { $1 })
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// A JSON array from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A JSON number from a literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A JSON boolean from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
