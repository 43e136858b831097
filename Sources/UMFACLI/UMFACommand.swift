import ArgumentParser
import UMFAWebAuthn

/// The `umfa` command-line tool.
@main
struct UMFACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "umfa",
        abstract: "UMFA: open passkey / FIDO2 multi-factor authentication.",
        version: UMFAVersion.string,
        subcommands: [
            ServeCommand.self, EnrollCommand.self, ApprovalsCommand.self, AuthenticateCommand.self, StatusCommand.self,
            UnenrollCommand.self, ValidateTokenCommand.self, AdminCommand.self, VerifyCommand.self,
            AuthenticatorCommand.self, QRCommand.self, OAuthCommand.self, OpenAPICommand.self,
        ]
    )
}
