import Foundation

/// Reads the JSON vector files bundled with the test target (`Resources/`).
enum VectorLoader {
    /// Decodes `Resources/<name>.json` as `T`.
    static func load<T: Decodable>(_ type: T.Type, from name: String) throws -> T {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Resources") else {
            throw TestSetupError("Resources/\(name).json is not in the test bundle")
        }
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }
}

/// Parses the RFC 3339 times the vector files use.
enum VectorTime {
    static func parse(_ text: String?) throws -> Date? {
        guard let text else { return nil }
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw TestSetupError("not an RFC 3339 time: \(text)")
        }
        return date
    }
}
