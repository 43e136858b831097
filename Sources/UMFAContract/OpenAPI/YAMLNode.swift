/// A YAML value as the OpenAPI document is written: ordered mappings, sequences and scalars.
/// Written as Swift literals where the document needs a detail the types cannot give
/// (`["type": "string", "format": "uuid"]`); ``text`` prints it the same way every time.
package indirect enum YAMLNode: Sendable, Equatable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int)
    /// A floating-point number.
    case number(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// `null`.
    case null
    /// A sequence.
    case list([YAMLNode])
    /// A mapping, its keys in the order written.
    case map([(String, YAMLNode)])

    package static func == (left: YAMLNode, right: YAMLNode) -> Bool {
        switch (left, right) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.null, .null): true
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The member `key` of a mapping.
    subscript(key: String) -> YAMLNode? {
        guard case .map(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The mapping's members, or none.
    var members: [(String, YAMLNode)] {
        if case .map(let members) = self { return members }
        return []
    }

    /// A mapping with `key` set to `value` (replaced in place, or added at the end).
    func setting(_ key: String, _ value: YAMLNode) -> YAMLNode {
        var members = self.members
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.append((key, value))
        }
        return .map(members)
    }

    /// A mapping without `key`.
    func removing(_ key: String) -> YAMLNode { .map(members.filter { $0.0 != key }) }
}

extension YAMLNode: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(booleanLiteral value: Bool) { self = .boolean(value) }
    package init(nilLiteral: ()) { self = .null }
    package init(arrayLiteral elements: YAMLNode...) { self = .list(elements) }
    package init(dictionaryLiteral elements: (String, YAMLNode)...) { self = .map(elements) }
}

extension YAMLNode {
    /// The node as block-style YAML 1.2, two spaces per level, ending in a newline. Strings that
    /// could read as another type or hold YAML's indicators are double-quoted.
    var text: String {
        var lines: [String] = []
        Self.write(self, indent: "", into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func write(_ node: YAMLNode, indent: String, into lines: inout [String]) {
        switch node {
        case .map(let members) where !members.isEmpty:
            for (key, value) in members {
                let head = indent + scalar(key) + ":"
                if let inline = value.inlineText {
                    lines.append(head + " " + inline)
                } else if let flow = value.flowText, head.count + 1 + flow.count <= lineLength {
                    lines.append(head + " " + flow)
                } else {
                    lines.append(head)
                    let nested = value.isList ? indent : indent + "  "
                    write(value, indent: nested, into: &lines)
                }
            }
        case .list(let items) where !items.isEmpty:
            for item in items {
                if let inline = item.inlineText {
                    lines.append(indent + "- " + inline)
                } else if let flow = item.flowText, indent.count + 2 + flow.count <= lineLength {
                    lines.append(indent + "- " + flow)
                } else {
                    var nested: [String] = []
                    write(item, indent: indent + "  ", into: &nested)
                    if let first = nested.first {
                        nested[0] = indent + "- " + first.dropFirst(indent.count + 2)
                    }
                    lines += nested
                }
            }
        default:
            lines.append(indent + (node.inlineText ?? ""))
        }
    }

    /// The width within which a mapping or sequence of scalars is written on one line.
    private static let lineLength = 110

    /// A mapping or sequence whose members are all scalars, in flow style (`{type: string}`,
    /// `[a, b]`); `nil` for anything deeper.
    private var flowText: String? {
        switch self {
        case .list(let items):
            let texts = items.compactMap(\.flowScalarText)
            return texts.count == items.count ? "[" + texts.joined(separator: ", ") + "]" : nil
        case .map(let members):
            let texts = members.compactMap { key, value in
                (value.flowScalarText ?? value.flowListText).map { Self.flowScalar(key) + ": " + $0 }
            }
            return texts.count == members.count ? "{" + texts.joined(separator: ", ") + "}" : nil
        default: return nil
        }
    }

    /// A sequence of scalars in flow style, inside a flow mapping.
    private var flowListText: String? {
        guard case .list = self else { return nil }
        return flowText
    }

    /// A scalar as it may stand inside a flow collection.
    private var flowScalarText: String? {
        switch self {
        case .string(let value): Self.flowScalar(value)
        case .list, .map: isEmpty ? inlineText : nil
        default: inlineText
        }
    }

    private var isEmpty: Bool {
        switch self {
        case .list(let items): items.isEmpty
        case .map(let members): members.isEmpty
        default: false
        }
    }

    /// A string as a plain scalar in flow context (no `,`, `[`, `]`, `{`, `}`), else quoted.
    private static func flowScalar(_ value: String) -> String {
        isPlain(value) && !value.contains(where: { ",[]{}".contains($0) }) ? value : quoted(value)
    }

    private var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// The node on one line, for scalars and empty collections.
    private var inlineText: String? {
        switch self {
        case .string(let value): Self.scalar(value)
        case .integer(let value): String(value)
        case .number(let value): "\(value)"
        case .boolean(let value): value ? "true" : "false"
        case .null: "null"
        case .list(let items): items.isEmpty ? "[]" : nil
        case .map(let members): members.isEmpty ? "{}" : nil
        }
    }

    /// A string as a plain scalar when it can only read as that string, else double-quoted.
    static func scalar(_ value: String) -> String {
        isPlain(value) ? value : quoted(value)
    }

    private static let reserved: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]

    private static func isPlain(_ value: String) -> Bool {
        // A version (`3.1.0`) reads as a string in YAML 1.1 and 1.2 alike; other text that starts
        // with a digit may read as a number or a date.
        if isVersion(value) { return true }
        guard let first = value.unicodeScalars.first, let last = value.unicodeScalars.last else { return false }
        guard first.properties.isAlphabetic || first == "/" || first == "_" || first == "$" else { return false }
        guard last != " ", last != ":" else { return false }
        if reserved.contains(value.lowercased()) || value.contains(": ") || value.contains(" #") { return false }
        return value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII ? allowed.contains(scalar) : scalar.properties.isAlphabetic
        }
    }

    /// Digits in three or more dot-separated parts.
    private static func isVersion(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    private static let allowed = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./(),;:+=~^{}$'".unicodeScalars)

    private static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
