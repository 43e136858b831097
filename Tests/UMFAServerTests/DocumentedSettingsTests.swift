import Foundation
import Testing

@testable import UMFAServer

/// README's configuration tables against the settings the server reads: a documented setting
/// is accepted as an environment variable and as a configuration file key alike, and a key
/// nobody reads is still refused (issue 34, item 7).
@Suite("Settings: every documented setting works in the environment and in the file")
struct DocumentedSettingsTests {
    /// The repository's README.md.
    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// `UMFA_…` names in the table rows of README's "Server configuration" and "Abuse limits"
    /// sections, in order of appearance.
    static func documentedNames() throws -> [String] {
        let text = try readme()
        var names: [String] = []
        var inSection = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") || line.hasPrefix("### ") {
                inSection = line == "### Server configuration" || line == "### Abuse limits"
                continue
            }
            guard inSection, line.hasPrefix("|") else { continue }
            for match in line.matches(of: /`(UMFA_[A-Z_]+)`/) where !names.contains(String(match.1)) {
                names.append(String(match.1))
            }
        }
        return names
    }

    /// The JSON example README gives for `--config FILE`.
    static func documentedFileExample() throws -> String? {
        guard let row = try readme().split(separator: "\n").first(where: { $0.hasPrefix("| `--config FILE`") }),
            let example = row.firstMatch(of: /\(`(\{[^`]*\})`\)/)
        else { return nil }
        return String(example.1).replacingOccurrences(of: "…", with: "u@h/db")
    }

    @Test("README documents the settings the server reads, no more and no fewer")
    func readmeMatchesTheReader() throws {
        let documented = try Self.documentedNames()
        #expect(documented.count >= 20, "README's tables were not found: \(documented)")
        #expect(Set(documented).subtracting(SettingsReader.known).isEmpty, "documented, not read")
        #expect(SettingsReader.known.subtracting(documented).isEmpty, "read, not documented")
    }

    @Test("each documented setting reads the same from the environment and from its file key")
    func bothForms() throws {
        for name in try Self.documentedNames() {
            let setting = try #require(ServerSetting(rawValue: name), "\(name) is documented but unknown")
            let key = String(name.dropFirst("UMFA_".count)).lowercased()
            #expect(setting.fileKey == key)
            let value = "value-of-\(key)"
            let json = try JSONSerialization.data(withJSONObject: [key: value])
            let file = try SettingsReader.fileSettings(json, path: "umfa.json")
            #expect(file == [setting: value], "\(key) in a configuration file")
            #expect(SettingsReader(file: file).string(setting) == value, "\(key) from a configuration file")
            #expect(SettingsReader(environment: [name: value]).string(setting) == value, "\(name) from the environment")
        }
    }

    @Test("limit_options_requests in a configuration file sets the options limit, as the variable does")
    func optionsLimitFromFile() throws {
        let file = try SettingsReader.fileSettings(Data(#"{"limit_options_requests": 7}"#.utf8), path: "umfa.json")
        var fromFile = ServerConfiguration()
        try fromFile.apply(SettingsReader(file: file))
        var fromEnvironment = ServerConfiguration()
        try fromEnvironment.apply(SettingsReader(environment: ["UMFA_LIMIT_OPTIONS_REQUESTS": "7"]))
        #expect(ServerConfiguration().abuseLimits.optionsRequests != 7)
        #expect(fromFile.abuseLimits.optionsRequests == 7)
        #expect(fromEnvironment.abuseLimits.optionsRequests == 7)
    }

    @Test("README's --config example is accepted as it stands")
    func readmeExample() throws {
        let example = try #require(try Self.documentedFileExample())
        let settings = try SettingsReader.fileSettings(Data(example.utf8), path: "README")
        #expect(settings[.port] == "8443")
        #expect(settings[.limitWindowSeconds] == "600")
        #expect(settings[.databaseURL] != nil)
    }

    @Test("an unknown key, or a known one spelled otherwise, is still refused")
    func unknownKeysRefused() throws {
        for key in ["limit_options_request", "LIMIT_OPTIONS_REQUESTS", "umfa_port", "UMFA_PORT", "issuer", ""] {
            let json = try JSONSerialization.data(withJSONObject: [key: 1])
            #expect(throws: ConfigurationError.self, "\(key)") {
                try SettingsReader.fileSettings(json, path: "umfa.json")
            }
        }
        #expect(ServerSetting(fileKey: "limit_options_requests") == .limitOptionsRequests)
        #expect(ServerSetting(fileKey: "Limit_Options_Requests") == nil)
    }
}
