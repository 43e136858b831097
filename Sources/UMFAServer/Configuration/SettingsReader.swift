import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// The one reader of server settings, whatever their source. Command-line flags win over the
/// environment (`UMFA_*`), which wins over the configuration file (`umfa serve --config FILE`):
/// a JSON object whose keys are the settings' names without `UMFA_`, in lower case
/// (`{"port": 8443, "database_url": "postgres://…", "limit_window_seconds": 600}`).
///
/// A value that does not parse, a time out of range, or an unknown key in the file stops the
/// start with a ``ConfigurationError`` naming the setting and where it came from; nothing is
/// silently ignored.
package struct SettingsReader: Sendable {
    /// Every setting the server reads, by its environment name: derived from ``ServerSetting``,
    /// the only names the accessors below take, so nothing is read that the file refuses.
    package static var known: Set<String> { Set(ServerSetting.allCases.map(\.environmentName)) }

    private let flags: [ServerSetting: String]
    private let environment: [String: String]
    private let file: [ServerSetting: String]
    private let fileName: String

    /// Creates a reader.
    /// - Parameters:
    ///   - flags: values given on the command line.
    ///   - environment: the process environment.
    ///   - file: the configuration file's settings (``fileSettings(at:)``).
    ///   - fileName: the configuration file's name, for messages.
    package init(
        flags: [ServerSetting: String] = [:], environment: [String: String] = [:], file: [ServerSetting: String] = [:],
        fileName: String = "the configuration file"
    ) {
        self.flags = flags
        self.environment = environment
        self.file = file
        self.fileName = fileName
    }

    /// Reads a configuration file (`-` for standard input) into settings.
    package static func fileSettings(at path: String) throws -> [ServerSetting: String] {
        let data: Data?
        if path == "-" || path == "/dev/stdin" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw ConfigurationError("--config: cannot read \(path)") }
        return try fileSettings(data, path: path)
    }

    /// Reads a configuration file's contents: one JSON object whose keys are
    /// ``ServerSetting/fileKey``s; any other key stops the start.
    static func fileSettings(_ data: Data, path: String) throws -> [ServerSetting: String] {
        guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw ConfigurationError("--config: \(path) must hold one JSON object of settings")
        }
        var settings: [ServerSetting: String] = [:]
        for (key, value) in members {
            guard let setting = ServerSetting(fileKey: key) else {
                throw ConfigurationError(
                    "--config: \(path) names an unknown setting \"\(key)\" (known: "
                        + ServerSetting.allCases.map(\.fileKey).sorted().joined(separator: ", ") + ")")
            }
            switch value {
            case .string(let text): settings[setting] = text
            case .number(let number):
                settings[setting] = number == number.rounded() ? String(Int(number)) : String(number)
            case .bool(let flag): settings[setting] = flag ? "1" : "0"
            default: throw ConfigurationError("--config: \(key) in \(path) must be a string, a number or a boolean")
            }
        }
        return settings
    }

    /// The raw value and where it came from.
    private func raw(_ setting: ServerSetting) -> (text: String, source: String)? {
        if let text = flags[setting] { return (text, "the command line") }
        if let text = environment[setting.environmentName] { return (text, "the environment") }
        if let text = file[setting] { return (text, fileName) }
        return nil
    }

    /// A text setting; an empty value counts as unset.
    package func string(_ setting: ServerSetting) -> String? {
        raw(setting).flatMap { $0.text.isEmpty ? nil : $0.text }
    }

    /// A whole number within `range`.
    package func integer(_ setting: ServerSetting, in range: ClosedRange<Int>) throws -> Int? {
        guard let (text, source) = raw(setting) else { return nil }
        let name = setting.environmentName
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                "\(name) (from \(source)) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\""
            )
        }
        return value
    }

    /// A time in seconds (fractions allowed) within `range`, as a `Duration`.
    package func duration(_ setting: ServerSetting, seconds range: ClosedRange<Double>) throws -> Duration? {
        guard let (text, source) = raw(setting) else { return nil }
        let name = setting.environmentName
        guard let seconds = Double(text), seconds.isFinite, range.contains(seconds) else {
            throw ConfigurationError(
                "\(name) (from \(source)) must be a number of seconds from \(Self.format(range.lowerBound)) to "
                    + "\(Self.format(range.upperBound)), not \"\(text)\"")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A switch: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`.
    package func flag(_ setting: ServerSetting) throws -> Bool? {
        guard let (text, source) = raw(setting) else { return nil }
        let name = setting.environmentName
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
