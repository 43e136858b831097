import ArgumentParser

/// `umfa verify`: offline checks of WebAuthn responses.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a WebAuthn response offline (WebAuthn L3 §7.1 / §7.2).",
        subcommands: [VerifyRegistrationCommand.self, VerifyAuthenticationCommand.self]
    )
}

/// The relying-party options both verify commands take.
struct RelyingPartyOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "The challenge the relying party issued (base64url).")
    var challenge: String

    @Option(help: "An origin the relying party accepts; repeat for several (web or native-app origins).")
    var origin: [String]

    @Option(name: .customLong("rp-id"), help: "The RP ID, such as example.org.")
    var rpID: String

    @Flag(name: .customLong("require-uv"), help: "Fail unless the user was verified (UV flag).")
    var requireUV = false

    @Option(
        name: .customLong("top-origin"),
        help: "A top-level origin allowed to embed the ceremony in a cross-origin iframe; repeatable.")
    var topOrigin: [String] = []

    @Flag(name: .customLong("allow-cross-origin"), help: "Accept ceremonies run in a cross-origin iframe.")
    var allowCrossOrigin = false
}
