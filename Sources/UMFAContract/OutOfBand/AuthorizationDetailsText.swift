import UMFAEncoding

/// The canonical text of RFC 9396 authorization details (docs/ciba.md, "The canonical text"):
/// what the phone and the consent page show, and what an approval's passkey signs. Server and
/// SDK both compute it, so an app can check that the details it draws are the ones signed.
///
/// Each entry is lines `path: value`, the `type` first, then every leaf (a value that is not an
/// object or array, or an empty `{}` or `[]`) in UTF-8 byte order of its path; entries are apart
/// by a line `--`. A path joins member names with `.` and array items as `[i]`; a member name of
/// anything but ASCII letters, digits, `_` and `-` is quoted. A string value is always quoted,
/// so `"false"` never passes for `false`. Quoted text is written as ``LogText/escape(_:)`` writes
/// it, a quote as `\"`, and a combining mark beyond the second on one base as `\u{…}`, so no
/// value can draw a line, reorder or cover another, or pass for a path or another value.
public enum AuthorizationDetailsText {
    /// The canonical text of `entries`.
    public static func canonical(_ entries: [[String: JSONValue]]) -> String {
        entries.map { entry in
            var lines = ["type: " + text(entry["type"] ?? .null)]
            var leaves: [(path: [UInt8], line: String)] = []
            for (name, value) in entry where name != "type" {
                flatten(value, path: self.name(name), into: &leaves)
            }
            leaves.sort { $0.path.lexicographicallyPrecedes($1.path) }
            lines += leaves.map(\.line)
            return lines.joined(separator: "\n")
        }
        .joined(separator: "\n--\n")
    }

    /// The canonical text of a JSON array of objects; `nil` for any other value.
    public static func canonical(_ value: JSONValue) -> String? {
        guard case .array(let items) = value else { return nil }
        var entries: [[String: JSONValue]] = []
        for item in items {
            guard case .object(let entry) = item else { return nil }
            entries.append(entry)
        }
        return canonical(entries)
    }

    private static func flatten(_ value: JSONValue, path: String, into leaves: inout [(path: [UInt8], line: String)]) {
        switch value {
        case .object(let members):
            if members.isEmpty { leaves.append((Array(path.utf8), path + ": {}")) }
            for (name, member) in members { flatten(member, path: path + "." + self.name(name), into: &leaves) }
        case .array(let items):
            if items.isEmpty { leaves.append((Array(path.utf8), path + ": []")) }
            for (index, item) in items.enumerated() { flatten(item, path: path + "[\(index)]", into: &leaves) }
        default:
            leaves.append((Array(path.utf8), path + ": " + text(value)))
        }
    }

    /// A member name as a path shows it: as it is when plain, else quoted, so no name can pass
    /// for a path of several (`a.b`, `a[0]`) or end the path early (`a: 1`).
    static func name(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
                    || $0 == 0x2D
            }
        return plain ? name : quoted(name)
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number):
            number.rounded() == number && abs(number) < 9_007_199_254_740_992 ? String(Int64(number)) : "\(number)"
        case .string(let text): quoted(text)
        case .array, .object: ""
        }
    }

    /// `text` in double quotes, escaped per Unicode scalar.
    static func quoted(_ text: String) -> String {
        var quoted = String.UnicodeScalarView(["\""])
        var marks = 0
        for scalar in LogText.escape(text).unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .spacingMark: marks += 1
            default: marks = 0
            }
            if marks > 2 {
                quoted.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
                continue
            }
            if scalar == "\"" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}
