import ArgumentParser
import Foundation
import UMFA
import UMFAContract

/// Options every device command takes: the SDK's configuration from the shell.
struct DeviceOptions: ParsableArguments {
    @Option(help: "The UMFA server, such as http://localhost:8080 (an app link names its own).")
    var server: String?

    @Option(help: "The application id (an app link names its own).")
    var app: String?

    @Option(parsing: .unconditional, help: "The application's user id.")
    var user: String?

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

    /// `--user`, which every command without an app link needs.
    var userID: String {
        get throws {
            guard let user else { throw ValidationError("--user is required") }
            return user
        }
    }

    func client() throws -> UMFAClient {
        UMFAClient(try config())
    }

    /// The SDK's configuration; `link` supplies the server and application when given.
    func config(link: UMFAAppLink? = nil) throws -> ZSMConfig {
        guard let url = link?.server ?? server.flatMap(URL.init(string:)), url.host != nil else {
            throw ValidationError("--server must be a URL such as http://localhost:8080")
        }
        guard let application = link?.applicationId ?? app else { throw ValidationError("--app is required") }
        var config = ZSMConfig(hostURL: url, applicationId: application)
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
        return config
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

    @Option(
        name: .customLong("app-link"), parsing: .unconditional,
        help: "Enroll out of band: the app link from the backend's QR code (docs/contract.md §7).")
    var appLink: String?

    @Option(
        name: .customLong("enroll-response"),
        help: "Enroll out of band: a file (or -) holding the backend's POST /api/umfa/users/enroll answer.")
    var enrollResponse: String?

    func validate() throws {
        if appLink != nil, enrollResponse != nil {
            throw ValidationError("give --app-link or --enroll-response, not both")
        }
    }

    func run() async throws {
        if let link = try outOfBandLink() {
            // Read once: the configuration reads the PIN from standard input.
            let config = try device.config(link: link)
            let relyingParty = OutOfBandRelyingParty(link: link, config: config)
            let client = UMFAClient(config, relyingParty: relyingParty)
            let given = device.user
            try await DeviceOptions.report { () async throws(ZSMError) in
                let redeemed = try await relyingParty.redeem()
                guard let user = redeemed.userID, given == nil || given == user else {
                    throw ZSMError(.invalidConfiguration, "the app link enrolls another user than --user names")
                }
                var result = try await client.enroll(userId: user).dictionary
                result["transaction_id"] = redeemed.transactionID
                return result
            }
            return
        }
        let client = try device.client()
        let user = try device.userID
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.enroll(userId: user).dictionary
        }
    }

    /// The app link given directly or inside an enroll response.
    private func outOfBandLink() throws -> UMFAAppLink? {
        var uri = appLink
        if let enrollResponse {
            let answer = try CommandIO.decode(
                OutOfBandEnrollResponse.self, from: enrollResponse, what: "the enroll response")
            uri = answer.enrollment.appLinkUri
        }
        guard let uri else { return nil }
        do {
            return try UMFAAppLink(uri: uri)
        } catch {
            throw ValidationError(error.description)
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
        let user = try device.userID
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.authenticate(userId: user).dictionary
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
        let user = try device.userID
        try await DeviceOptions.report { () async throws(ZSMError) in
            try await client.checkEnrollment(userId: user).dictionary
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
        let user = try device.userID
        let removed = await client.unenroll(userId: user)
        let json =
            "{\"success\":\(removed),\"user_id\":\(String(decoding: try JSONEncoder().encode(user), as: UTF8.self))}"
        guard removed else {
            FileHandle.standardOutput.write(Data((json + "\n").utf8))
            CommandIO.printError(
                "the passkey could not be removed (server unreachable, refused, or not enrolled); the device keeps it")
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data((json + "\n").utf8))
    }
}
