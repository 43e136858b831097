import ArgumentParser
import Foundation
import UMFAContract

extension AdminCommand {
    /// `umfa admin list-console-credentials`: the admin console's operator passkeys.
    struct ListConsoleCredentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-console-credentials",
            abstract: "List the admin console's operator passkeys (never their keys).")
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.listConsoleCredentials))
        }
    }

    /// `umfa admin delete-console-credential`: removes an operator passkey and ends its sessions.
    struct DeleteConsoleCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-console-credential",
            abstract: "Remove an operator passkey of the admin console; its sessions end at once.")
        @OptionGroup var connection: AdminConnection
        @Option(
            name: .customLong("credential-id"), parsing: .unconditional,
            help: "The credential id from list-console-credentials.")
        var credentialID: String

        func run() async throws {
            try HTTPClient.finish(
                try await connection.send(.deleteConsoleCredential, ["credential_id": credentialID]))
        }
    }

    /// `umfa admin list-console-sessions`: the admin console's live sessions.
    struct ListConsoleSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-console-sessions", abstract: "List the admin console's live sessions.")
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.listConsoleSessions))
        }
    }

    /// `umfa admin delete-console-session`: ends one console session.
    struct DeleteConsoleSession: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-console-session", abstract: "End an admin console session at once.")
        @OptionGroup var connection: AdminConnection
        @Option(
            name: .customLong("session-id"), parsing: .unconditional, help: "The session id from list-console-sessions."
        )
        var sessionID: String

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.deleteConsoleSession, ["session_id": sessionID]))
        }
    }
}
