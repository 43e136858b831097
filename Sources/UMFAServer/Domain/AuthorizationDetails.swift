import Foundation
import UMFAEncoding

/// Rich authorization requests (RFC 9396): what a client asks the person to authorize, as a JSON
/// array of objects whose `type` is one the application declares (its setting
/// `authorization_details_types`). The same value goes from the request (authorization, PAR,
/// CIBA, an out-of-band approval) to the device, which shows its ``canonicalText`` and signs it,
/// and on to the token response, the access token and introspection (docs/ciba.md).
struct AuthorizationDetails: Sendable, Hashable, Codable {
    /// The entries, as the client sent them.
    let entries: [[String: JSONValue]]

    /// The most entries one request may carry.
    static let maximumEntries = 10
    /// The most bytes of the JSON text.
    static let maximumBytes = 8192
    /// The deepest nesting of objects and arrays inside an entry.
    static let maximumDepth = 6
    /// RFC 9396 §2.2's common members, and the JSON type each must have.
    static let stringArrays = ["locations", "actions", "datatypes", "privileges"]

    /// Why a value was refused (RFC 9396 §5 `invalid_authorization_details`).
    struct Invalid: Error, Equatable {
        let reason: String
    }

    /// Parses `text` and checks every entry against the declared `types` (RFC 9396 §2, §5).
    static func parse(_ text: String, types: [String]) throws(Invalid) -> AuthorizationDetails {
        guard text.utf8.count <= maximumBytes else {
            throw Invalid(reason: "authorization_details is longer than \(maximumBytes) bytes")
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw Invalid(reason: "authorization_details must be a JSON array of objects")
        }
        return try check(value, types: types)
    }

    /// Checks a parsed value (the approval API's JSON member) as ``parse(_:types:)`` does, its
    /// JSON text held to the same size.
    static func check(_ value: JSONValue, types: [String]) throws(Invalid) -> AuthorizationDetails {
        guard let encoded = try? JSONEncoder().encode(value), encoded.count <= maximumBytes else {
            throw Invalid(reason: "authorization_details is longer than \(maximumBytes) bytes")
        }
        guard case .array(let items) = value, !items.isEmpty, items.count <= maximumEntries else {
            throw Invalid(
                reason: "authorization_details must be a JSON array of 1 to \(maximumEntries) objects")
        }
        var entries: [[String: JSONValue]] = []
        for item in items {
            guard case .object(let entry) = item else {
                throw Invalid(reason: "each authorization_details entry must be a JSON object")
            }
            guard case .string(let type) = entry["type"] else {
                throw Invalid(reason: "each authorization_details entry needs a type string")
            }
            // Step 1 (§5): a type this application declares; nothing else is understood.
            guard types.contains(type) else {
                throw Invalid(reason: "authorization_details type \(LogText.escape(type)) is not supported")
            }
            // Step 2 (§2.2): the common members have their defined shapes.
            for name in stringArrays {
                guard let member = entry[name] else { continue }
                guard case .array(let values) = member,
                    values.allSatisfy({ if case .string = $0 { true } else { false } })
                else { throw Invalid(reason: "authorization_details \(name) must be an array of strings") }
            }
            if let identifier = entry["identifier"] {
                guard case .string = identifier else {
                    throw Invalid(reason: "authorization_details identifier must be a string")
                }
            }
            guard depth(item) <= maximumDepth else {
                throw Invalid(reason: "authorization_details is nested more than \(maximumDepth) levels")
            }
            entries.append(entry)
        }
        return AuthorizationDetails(entries: entries)
    }

    /// The value as JSON, for tokens and answers.
    var json: JSONValue { .array(entries.map(JSONValue.object)) }

    /// The canonical text the device shows and the passkey signs (docs/ciba.md): each entry as
    /// lines `path: value`, the `type` first, then every leaf in UTF-8 byte order of its path
    /// (object members joined by `.`, array items as `[i]`; a member name of anything but ASCII
    /// letters, digits, `_` and `-` in double quotes, a quote in it as `\"`); entries apart by a
    /// line `--`.
    /// Strings and names are written as ``LogText/escape(_:)`` writes them (control, line-breaking
    /// and bidirectional scalars as escapes, a backslash doubled), so no entry can draw a line or
    /// reorder the text of another.
    var canonicalText: String {
        entries.map { entry in
            var lines = ["type: " + Self.text(entry["type"] ?? .null)]
            var leaves: [(String, String)] = []
            for (name, value) in entry where name != "type" {
                Self.flatten(value, path: Self.name(name), into: &leaves)
            }
            leaves.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            lines += leaves.map { "\($0.0): \($0.1)" }
            return lines.joined(separator: "\n")
        }
        .joined(separator: "\n--\n")
    }

    private static func flatten(_ value: JSONValue, path: String, into leaves: inout [(String, String)]) {
        switch value {
        case .object(let members):
            if members.isEmpty { leaves.append((path, "{}")) }
            for (name, member) in members { flatten(member, path: path + "." + Self.name(name), into: &leaves) }
        case .array(let items):
            if items.isEmpty { leaves.append((path, "[]")) }
            for (index, item) in items.enumerated() { flatten(item, path: path + "[\(index)]", into: &leaves) }
        default:
            leaves.append((path, text(value)))
        }
    }

    /// A member name as a path shows it: as it is when plain, else quoted, so no name can pass
    /// for a path of several (`a.b`, `a[0]`) or end the path early (`a: 1`).
    private static func name(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
                    || $0 == 0x2D
            }
        if plain { return name }
        var quoted = String.UnicodeScalarView(["\""])
        for scalar in LogText.escape(name).unicodeScalars {
            if scalar == "\"" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number):
            number.rounded() == number && abs(number) < 9_007_199_254_740_992 ? String(Int64(number)) : "\(number)"
        case .string(let text): LogText.escape(text)
        case .array, .object: ""
        }
    }

    private static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
        case .array(let items): 1 + (items.map(depth).max() ?? 0)
        default: 0
        }
    }

    /// The text the device shows for an approval: the message, then the details' canonical text.
    static func approvalText(message: String, details: AuthorizationDetails?) -> String {
        guard let details else { return message }
        return message.isEmpty ? details.canonicalText : message + "\n\n" + details.canonicalText
    }
}
