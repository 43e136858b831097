import Foundation
import UMFAWebAuthn

/// The one reader of server settings, whatever their source. Command-line flags win over the
/// environment (`UMFA_*`), which wins over the configuration file (`umfa serve --config FILE`):
/// a JSON object whose keys are the settings' names without `UMFA_`, in lower case
/// (`{"port": 8443, "database_url": "postgres://…", "limit_window_seconds": 600}`).
///
/// A value that does not parse, a time out of range, or an unknown key in the file stops the
/// start with a ``ConfigurationError`` naming the setting and where it came from; nothing is
/// silently ignored.
public struct SettingsReader: Sendable {
    /// Every setting the server reads, by its environment name.
    public static let known: Set<String> = [
        "UMFA_HOST", "UMFA_PORT", "UMFA_DATABASE_URL", "UMFA_DATA_DIR", "UMFA_ADMIN_TOKEN", "UMFA_MASTER_KEY",
        "UMFA_METADATA_FILE", "UMFA_LOG_LEVEL", "UMFA_SIGNING_KEY_REFRESH_SECONDS", "UMFA_TRUST_FORWARDED_FOR",
        "UMFA_IDLE_TIMEOUT_SECONDS", "UMFA_BODY_TIMEOUT_SECONDS", "UMFA_LIMIT_USER_FAILURES",
        "UMFA_LIMIT_ADDRESS_FAILURES", "UMFA_LIMIT_CREDENTIAL_FAILURES", "UMFA_LIMIT_WINDOW_SECONDS",
        "UMFA_LIMIT_BLOCK_SECONDS", "UMFA_LIMIT_MAX_BLOCK_SECONDS", "UMFA_METRICS_TOKEN", "UMFA_AUDIT_RETENTION_DAYS",
        "UMFA_WEBHOOK_TIMEOUT_SECONDS",
        "UMFA_PUBLIC_URL", "UMFA_VALIDATION_CACHE_SECONDS",
    ]

    private let flags: [String: String]
    private let environment: [String: String]
    private let file: [String: String]
    private let fileName: String

    /// Creates a reader.
    /// - Parameters:
    ///   - flags: values given on the command line, by environment name.
    ///   - environment: the process environment.
    ///   - file: the configuration file's settings (``fileSettings(at:)``), by environment name.
    public init(
        flags: [String: String] = [:], environment: [String: String] = [:], file: [String: String] = [:],
        fileName: String = "the configuration file"
    ) {
        self.flags = flags
        self.environment = environment
        self.file = file
        self.fileName = fileName
    }

    /// Reads a configuration file (`-` for standard input) into settings by environment name.
    public static func fileSettings(at path: String) throws -> [String: String] {
        let data: Data?
        if path == "-" || path == "/dev/stdin" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw ConfigurationError("--config: cannot read \(path)") }
        guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw ConfigurationError("--config: \(path) must hold one JSON object of settings")
        }
        var settings: [String: String] = [:]
        for (key, value) in members {
            let name = "UMFA_" + key.uppercased()
            guard known.contains(name), key == key.lowercased() else {
                throw ConfigurationError(
                    "--config: \(path) names an unknown setting \"\(key)\" (known: "
                        + known.sorted().map { $0.dropFirst(5).lowercased() }.joined(separator: ", ") + ")")
            }
            switch value {
            case .string(let text): settings[name] = text
            case .number(let number): settings[name] = number == number.rounded() ? String(Int(number)) : String(number)
            case .bool(let flag): settings[name] = flag ? "1" : "0"
            default: throw ConfigurationError("--config: \(key) in \(path) must be a string, a number or a boolean")
            }
        }
        return settings
    }

    /// The raw value and where it came from.
    private func raw(_ name: String) -> (text: String, source: String)? {
        if let text = flags[name] { return (text, "the command line") }
        if let text = environment[name] { return (text, "the environment") }
        if let text = file[name] { return (text, fileName) }
        return nil
    }

    /// A text setting; an empty value counts as unset.
    public func string(_ name: String) -> String? {
        raw(name).flatMap { $0.text.isEmpty ? nil : $0.text }
    }

    /// A whole number within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let (text, source) = raw(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                "\(name) (from \(source)) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\""
            )
        }
        return value
    }

    /// A time in seconds (fractions allowed) within `range`, as a `Duration`.
    public func duration(_ name: String, seconds range: ClosedRange<Double>) throws -> Duration? {
        guard let (text, source) = raw(name) else { return nil }
        guard let seconds = Double(text), seconds.isFinite, range.contains(seconds) else {
            throw ConfigurationError(
                "\(name) (from \(source)) must be a number of seconds from \(Self.format(range.lowerBound)) to "
                    + "\(Self.format(range.upperBound)), not \"\(text)\"")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A switch: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`.
    public func flag(_ name: String) throws -> Bool? {
        guard let (text, source) = raw(name) else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ConfigurationError("\(name) (from \(source)) must be 1 or 0 (true or false), not \"\(text)\"")
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

extension Duration {
    /// The duration in seconds, for APIs that take `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, for NIO's `TimeAmount`.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
