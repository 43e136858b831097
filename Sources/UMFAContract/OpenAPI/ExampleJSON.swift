import Foundation

/// A JSON value read from an encoded contract body, so that the document generator can see its
/// members and their JSON types, and take members away to find the required ones.
enum ExampleJSON: Codable, Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case null
    case array([ExampleJSON])
    case object([String: ExampleJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ExampleJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ExampleJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A value encoded as JSON and read back.
    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(ExampleJSON.self, from: JSONEncoder().encode(value))
    }

    /// The JSON Schema type name (JSON Schema Validation §6.1.1).
    var schemaType: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .null: "null"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value as a YAML node, object members in key order.
    var node: YAMLNode {
        switch self {
        case .string(let value): .string(value)
        case .integer(let value): .integer(value)
        case .number(let value): .number(value)
        case .boolean(let value): .boolean(value)
        case .null: .null
        case .array(let items): .list(items.map(\.node))
        case .object(let members): .map(members.keys.sorted().compactMap { key in members[key].map { (key, $0.node) } })
        }
    }

    /// The value without the member `key` of the object reached by `path` (array steps are
    /// indices as text).
    func removing(_ key: String, at path: ArraySlice<String>) -> ExampleJSON {
        guard let step = path.first else {
            guard case .object(var members) = self else { return self }
            members.removeValue(forKey: key)
            return .object(members)
        }
        switch self {
        case .object(var members):
            members[step] = members[step]?.removing(key, at: path.dropFirst())
            return .object(members)
        case .array(var items):
            guard let index = Int(step), items.indices.contains(index) else { return self }
            items[index] = items[index].removing(key, at: path.dropFirst())
            return .array(items)
        default: return self
        }
    }
}
