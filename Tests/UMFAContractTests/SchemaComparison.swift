import Foundation
import UMFAContract

/// Compares a contract type with an OpenAPI schema: the type's fields are read from its encoded
/// ``ContractBody/example`` and its required fields found by removing each field in turn and
/// decoding again. Nested objects (and arrays of objects) are compared wherever the document
/// lists their properties; WebAuthn objects, which the document leaves open, are not.
enum SchemaComparison {
    static func compare(_ type: any ContractBody.Type, schema: [String: Any], document: [String: Any]) -> [String] {
        func open<T: ContractBody>(_ type: T.Type) -> [String] {
            guard let data = try? JSONEncoder().encode(T.example),
                let example = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return ["the example of \(T.self) does not encode to an object"] }
            let decodes: ([String: Any]) -> Bool = { object in
                guard let data = try? JSONSerialization.data(withJSONObject: object) else { return false }
                return (try? JSONDecoder().decode(T.self, from: data)) != nil
            }
            return walk(example, root: example, at: [], schema: schema, document: document, decodes: decodes)
        }
        return open(type)
    }

    private static func walk(
        _ object: [String: Any], root: [String: Any], at path: [String], schema: [String: Any],
        document: [String: Any], decodes: ([String: Any]) -> Bool
    ) -> [String] {
        let schema = resolve(schema, in: document)
        guard let properties = schema["properties"] as? [String: Any] else { return [] }
        let name = path.isEmpty ? "(top)" : path.joined(separator: ".")
        var problems: [String] = []
        for key in Set(object.keys).subtracting(properties.keys).sorted() {
            problems.append("field \(name).\(key) is in the type but not in the document")
        }
        for key in Set(properties.keys).subtracting(object.keys).sorted() {
            problems.append("field \(name).\(key) is in the document but not in the type")
        }
        let required = Set(object.keys.filter { !decodes(removing($0, at: path, from: root)) })
        let documented = Set(schema["required"] as? [String] ?? [])
        if required != documented {
            problems.append(
                "required fields differ at \(name): type [\(required.sorted().joined(separator: ", "))], "
                    + "document [\(documented.sorted().joined(separator: ", "))]")
        }
        for (key, value) in object {
            guard let property = (properties[key] as? [String: Any]).map({ resolve($0, in: document) }) else {
                continue
            }
            if let nested = value as? [String: Any] {
                problems += walk(
                    nested, root: root, at: path + [key], schema: property, document: document, decodes: decodes)
            } else if let first = (value as? [Any])?.first as? [String: Any],
                let items = property["items"] as? [String: Any]
            {
                problems += walk(
                    first, root: root, at: path + [key, "0"], schema: items, document: document, decodes: decodes)
            }
        }
        return problems
    }

    /// Follows `$ref: "#/components/schemas/Name"`.
    private static func resolve(_ schema: [String: Any], in document: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/") else { return schema }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let next = (node as? [String: Any])?[String(part)] else { return schema }
            node = next
        }
        return (node as? [String: Any]).map { resolve($0, in: document) } ?? schema
    }

    /// `root` without the member `key` of the object at `path` (array steps are indices).
    private static func removing(_ key: String, at path: [String], from root: [String: Any]) -> [String: Any] {
        func strip(_ node: Any, _ rest: ArraySlice<String>) -> Any {
            guard let step = rest.first else {
                var object = node as? [String: Any] ?? [:]
                object.removeValue(forKey: key)
                return object
            }
            if var array = node as? [Any], let index = Int(step), array.indices.contains(index) {
                array[index] = strip(array[index], rest.dropFirst())
                return array
            }
            var object = node as? [String: Any] ?? [:]
            if let child = object[step] { object[step] = strip(child, rest.dropFirst()) }
            return object
        }
        return strip(root, path[...]) as? [String: Any] ?? root
    }
}
