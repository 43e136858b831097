import ArgumentParser
import Foundation
import UMFAContract

/// `umfa validate-token`: what an application's backend does with a token from a device.
struct ValidateTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate-token",
        abstract: "Validate a login token (or a credential assertion) with the server; exit 0 only when valid.",
        discussion: "Prints the server's response body. The API key may also come from UMFA_API_KEY."
    )

    @Option(help: "The server, such as http://localhost:8080.")
    var server: String

    @Option(
        name: .customLong("api-key"), parsing: .unconditional, help: "The application's API key (or env UMFA_API_KEY).")
    var apiKey: String?

    @Option(help: "The application id.")
    var app: String

    @Option(parsing: .unconditional, help: "The application's user id.")
    var user: String

    @Option(
        parsing: .unconditional,
        help: "The login JWT, or with --token-type credential an AuthenticationResponseJSON (text or @file).")
    var token: String

    @Option(name: .customLong("token-type"), help: "jwt (default) or credential.")
    var tokenType: String?

    func run() async throws {
        guard let key = apiKey ?? ProcessInfo.processInfo.environment["UMFA_API_KEY"] else {
            throw ValidationError("give --api-key or set UMFA_API_KEY")
        }
        var tokenValue = token
        if token.hasPrefix("@") {
            tokenValue = String(decoding: try CommandIO.readFile(String(token.dropFirst())), as: UTF8.self)
        }
        let body = ValidateTokenRequest(
            applicationID: app, userID: user, token: .string(tokenValue), tokenType: tokenType)
        let reply = try await HTTPClient(server: server).send(.validateToken, bearer: key, body: body)
        try HTTPClient.finish(reply, success: [200])
    }
}
