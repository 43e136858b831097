import ArgumentParser
import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// `umfa authenticator`: a virtual FIDO2 authenticator for testing any relying party.
struct AuthenticatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator",
        abstract: "A virtual authenticator: answers WebAuthn options with responses any relying party can verify.",
        subcommands: [RegisterCommand.self, AssertCommand.self]
    )
}

/// Options both authenticator commands take.
struct VirtualAuthenticatorOptions: ParsableArguments {
    @Option(help: "A file with the options JSON: {\"publicKey\": {...}} as UMFA sends it, or the options alone.")
    var options: String

    @Option(help: "The origin the virtual browser runs on, such as https://example.org.")
    var origin: String

    @Option(name: .customLong("top-origin"), help: "The top-level origin, to act as a cross-origin iframe.")
    var topOrigin: String?

    @Option(help: "The directory that keeps the authenticator's encrypted credentials.")
    var state: String = ".umfa/authenticator"

    @Flag(help: "Report that the user was verified (sets the UV flag).")
    var uv = false

    @Option(
        name: .customLong("prf-salt"),
        help: ArgumentHelp(
            "A PRF input (base64url) for the prf extension's eval; give it twice for first and second.",
            valueName: "base64url"))
    var prfSalts: [String] = []

    @Flag(name: .customLong("no-prf"), help: "Act as an authenticator without hmac-secret, so PRF is unsupported.")
    var noPRF = false

    func validate() throws {
        guard prfSalts.count <= 2 else { throw ValidationError("--prf-salt may be given at most twice") }
        for salt in prfSalts where Base64URL.decode(salt) == nil {
            throw ValidationError("--prf-salt \(salt) is not base64url")
        }
    }

    func client() throws -> WebAuthnClient {
        let directory = URL(fileURLWithPath: state)
        let store = try DirectoryCredentialStore(directory: directory)
        let deviceKey = try DeviceKeyFile(directory: directory)
        return WebAuthnClient(
            origin: origin, topOrigin: topOrigin,
            authenticator: SoftwareAuthenticator(
                store: store, deviceKeyProvider: deviceKey,
                extensions: noPRF ? AuthenticatorExtensions.all.subtracting(.hmacSecret) : .all))
    }

    /// `extensions` with `prf.eval` set from `--prf-salt`, or as they were without one.
    func extensions(_ extensions: [String: JSONValue]?) -> [String: JSONValue]? {
        guard let first = prfSalts.first.flatMap(Base64URL.decode) else { return extensions }
        var merged = extensions ?? [:]
        merged["prf"] = PRFResults.input(first: first, second: prfSalts.dropFirst().first.flatMap(Base64URL.decode))
        return merged
    }

    /// Reads the options, unwrapping a `publicKey` member when there is one.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        let data = try CommandIO.readFile(options)
        if let wrapped = try? JSONDecoder().decode(PublicKeyWrapper<T>.self, from: data) { return wrapped.publicKey }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ValidationError("\(options) holds no valid options: \(CommandIO.describe(error))")
        }
    }
}

/// `umfa authenticator register`.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register", abstract: "Create a credential and print a RegistrationResponseJSON.")

    @OptionGroup var common: VirtualAuthenticatorOptions

    func run() async throws {
        var options = try common.read(CreationOptionsJSON.self)
        options.extensions = common.extensions(options.extensions)
        do {
            try CommandIO.printJSON(try common.client().create(options, userVerified: common.uv))
        } catch let error as AuthenticatorError {
            CommandIO.printError(error.description)
            throw ExitCode(1)
        }
    }
}

/// `umfa authenticator assert`.
struct AssertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assert", abstract: "Sign a challenge and print an AuthenticationResponseJSON.")

    @OptionGroup var common: VirtualAuthenticatorOptions

    func run() async throws {
        var options = try common.read(RequestOptionsJSON.self)
        options.extensions = common.extensions(options.extensions)
        do {
            try CommandIO.printJSON(try common.client().get(options, userVerified: common.uv))
        } catch let error as AuthenticatorError {
            CommandIO.printError(error.description)
            throw ExitCode(1)
        }
    }
}

/// `{"publicKey": ...}`, the shape UMFA's options endpoints answer with.
struct PublicKeyWrapper<Options: Decodable>: Decodable {
    let publicKey: Options
}
