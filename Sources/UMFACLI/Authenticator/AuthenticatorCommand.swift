import ArgumentParser
import Foundation
import UMFAAuthenticator
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

    func client() throws -> WebAuthnClient {
        let directory = URL(fileURLWithPath: state)
        let store = try DirectoryCredentialStore(directory: directory)
        let deviceKey = try DeviceKeyFile(directory: directory)
        return WebAuthnClient(
            origin: origin, topOrigin: topOrigin,
            authenticator: SoftwareAuthenticator(store: store, deviceKeyProvider: deviceKey))
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
        let options = try common.read(CreationOptionsJSON.self)
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
        let options = try common.read(RequestOptionsJSON.self)
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
