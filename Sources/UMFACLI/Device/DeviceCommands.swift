import ArgumentParser
import Foundation
import UMFA

/// Options every device command takes: the SDK's configuration from the shell.
struct DeviceOptions: ParsableArguments {
    @Option(help: "The UMFA server, such as http://localhost:8080.")
    var server: String

    @Option(help: "The application id.")
    var app: String

    @Option(parsing: .unconditional, help: "The application's user id.")
    var user: String

    @Option(name: .customLong("device-dir"), help: "Where this device keeps its passkeys.")
    var deviceDir: String = ".umfa/device"

    @Option(help: "The WebAuthn origin; the server's origin by default.")
    var origin: String?

    @Flag(
        name: .customLong("pin-stdin"), help: "Read the PIN from standard input (enroll: the new PIN; later: the PIN).")
    var pinStdin = false

    @Option(
        name: .customLong("enrollment-token"), parsing: .unconditional,
        help: "An enrollment token from the application's backend (or env UMFA_ENROLLMENT_TOKEN).")
    var enrollmentToken: String?

    @Option(name: .customLong("device-name"), help: "A name for this device in credential lists.")
    var deviceName: String?

    func client() throws -> UMFAClient {
        guard let url = URL(string: server), url.host != nil else {
            throw ValidationError("--server must be a URL such as http://localhost:8080")
        }
        var config = ZSMConfig(hostURL: url, applicationId: app)
        config.storageLocation = URL(fileURLWithPath: deviceDir)
        config.origin = origin
        config.deviceName = deviceName
        if pinStdin {
            let pin = StandardInput.firstLine()
            config.userVerification = .pin { _ in pin }
        }
        if let token = enrollmentToken ?? ProcessInfo.processInfo.environment["UMFA_ENROLLMENT_TOKEN"] {
            config.enrollmentTokenProvider = { _ in token }
        }
        return UMFAClient(config)
    }

    /// Prints the SDK's data as one JSON object, or the error on standard error with exit 1.
    static func report(_ body: () async throws(ZSMError) -> [String: Any]) async throws {
        do throws(ZSMError) {
            let data = try await body()
            let json = try? JSONSerialization.data(
                withJSONObject: data, options: [.sortedKeys, .withoutEscapingSlashes])
            FileHandle.standardOutput.write((json ?? Data()) + Data("\n".utf8))
        } catch {
            CommandIO.printError(error.description)
            throw ExitCode(1)
        }
    }
}

/// Reads the PIN or password piped to the command, without echo or logging.
enum StandardInput {
    static func firstLine() -> String? {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { return nil }
        return line
    }
}

/// `umfa enroll`: the SDK's `enroll(userId:)`.
struct EnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll", abstract: "Create a passkey on this device for the user and register it.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let client = try device.client()
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.enroll(userId: device.user).dictionary
        }
    }
}

/// `umfa authenticate`: the SDK's `authenticate(userId:)`.
struct AuthenticateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticate", abstract: "Sign the user in with this device's passkey; prints the token.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let client = try device.client()
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.authenticate(userId: device.user).dictionary
        }
    }
}

/// `umfa status`: the SDK's `checkEnrollment(userId:)`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say whether this device holds a passkey for the user.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let client = try device.client()
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.checkEnrollment(userId: device.user).dictionary
        }
    }
}

/// `umfa unenroll`: the SDK's `unenroll(userId:)`.
struct UnenrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unenroll", abstract: "Remove the user's passkey from the server and this device.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let client = try device.client()
        let removed = await client.unenroll(userId: device.user)
        let json =
            "{\"success\":\(removed),\"user_id\":\(String(decoding: try JSONEncoder().encode(device.user), as: UTF8.self))}"
        guard removed else {
            FileHandle.standardOutput.write(Data((json + "\n").utf8))
            CommandIO.printError(
                "the passkey could not be removed (server unreachable, refused, or not enrolled); the device keeps it")
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data((json + "\n").utf8))
    }
}
