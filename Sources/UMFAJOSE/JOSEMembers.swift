/// A JSON member name, for reading an object's members whatever they are.
struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == MemberKey {
    /// The names of every member of the object, known or not.
    var memberNames: Set<String> { Set(allKeys.map(\.stringValue)) }

    /// Member `name` when it is there with a value of type `Value`; `nil` when it is absent or of
    /// another type, as a reader that checks each member's type itself treats it.
    func lenient<Value: Decodable>(_ name: String, as type: Value.Type = Value.self) -> Value? {
        (try? decodeIfPresent(type, forKey: MemberKey(name))) ?? nil
    }
}

extension KeyedEncodingContainer where Key == MemberKey {
    /// Writes `value` as member `name` unless it is `nil`.
    mutating func encode(_ value: (some Encodable)?, as name: String) throws {
        if let value { try encode(value, forKey: MemberKey(name)) }
    }
}
