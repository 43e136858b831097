import Foundation
import Testing

@testable import UMFAServer

@Suite("Settings: one reader for flags, environment and the configuration file")
struct SettingsReaderTests {
    @Test("flags win over the environment, which wins over the file")
    func precedence() throws {
        let reader = SettingsReader(
            flags: [.port: "9001"], environment: ["UMFA_PORT": "9002", "UMFA_HOST": "0.0.0.0"],
            file: [.port: "9003", .host: "10.0.0.1", .limitUserFailures: "9"])
        #expect(try reader.integer(.port, in: 0...65_535) == 9001)
        #expect(reader.string(.host) == "0.0.0.0")
        #expect(try reader.integer(.limitUserFailures, in: 0...100) == 9)
        #expect(reader.string(.dataDirectory) == nil)
    }

    @Test("a bad value names the setting and its source; times become Durations")
    func badValues() throws {
        let reader = SettingsReader(
            environment: ["UMFA_PORT": "eighty", "UMFA_TRUST_FORWARDED_FOR": "perhaps"],
            file: [.idleTimeoutSeconds: "7200", .bodyTimeoutSeconds: "2.5"], fileName: "umfa.json")
        let port = #expect(throws: ConfigurationError.self) { try reader.integer(.port, in: 0...65_535) }
        #expect(port?.description.contains("UMFA_PORT (from the environment)") == true)
        let idle = #expect(throws: ConfigurationError.self) {
            try reader.duration(.idleTimeoutSeconds, seconds: 0.001...3600)
        }
        #expect(idle?.description.contains("UMFA_IDLE_TIMEOUT_SECONDS (from umfa.json)") == true)
        #expect(throws: ConfigurationError.self) { try reader.flag(.trustForwardedFor) }
        #expect(try reader.duration(.bodyTimeoutSeconds, seconds: 0.001...3600) == .milliseconds(2500))
    }

    @Test("the whole configuration applies from a file, and a bad value anywhere stops it")
    func configurationFromFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("umfa.json")
        try Data(
            #"{"port": 8443, "body_timeout_seconds": 3, "trust_forwarded_for": true, "limit_block_seconds": 5}"#.utf8
        ).write(to: file)
        var configuration = ServerConfiguration()
        try configuration.apply(SettingsReader(file: try SettingsReader.fileSettings(at: file.path)))
        #expect(configuration.port == 8443)
        #expect(configuration.bodyReadTimeout == .seconds(3))
        #expect(configuration.trustForwardedFor)
        #expect(configuration.abuseLimits.baseBlock == .seconds(5))

        try Data(#"{"limit_user_failure": 3}"#.utf8).write(to: file)
        let unknown = #expect(throws: ConfigurationError.self) { try SettingsReader.fileSettings(at: file.path) }
        #expect(unknown?.description.contains("limit_user_failure") == true)
        try Data("[1, 2]".utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try SettingsReader.fileSettings(at: file.path) }
        var strict = ServerConfiguration()
        #expect(throws: ConfigurationError.self) {
            try strict.apply(SettingsReader(file: [.limitMaxBlockSeconds: "1"]))
        }
    }

    @Test("UMFA_METRICS_TOKEN comes from --metrics-token, the environment or metrics_token in the file")
    func metricsToken() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("umfa.json")
        try Data(#"{"metrics_token": "from-the-file"}"#.utf8).write(to: file)
        let fromFile = try SettingsReader.fileSettings(at: file.path)
        var configuration = ServerConfiguration()
        #expect(configuration.metricsToken == nil)
        try configuration.apply(SettingsReader(file: fromFile))
        #expect(configuration.metricsToken == "from-the-file")
        try configuration.apply(
            SettingsReader(
                flags: [.metricsToken: "from-the-flag"], environment: ["UMFA_METRICS_TOKEN": "from-env"],
                file: fromFile))
        #expect(configuration.metricsToken == "from-the-flag")
        var fromEnvironment = ServerConfiguration()
        try fromEnvironment.apply(SettingsReader(environment: ["UMFA_METRICS_TOKEN": "from-env"], file: fromFile))
        #expect(fromEnvironment.metricsToken == "from-env")
    }
}
