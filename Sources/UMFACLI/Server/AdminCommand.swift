import ArgumentParser
import Foundation
import UMFAContract
import UMFAEncoding

/// `umfa admin`: the admin API from the shell. The admin token comes from `UMFA_ADMIN_TOKEN`
/// or `--admin-token` (the environment keeps it out of the process list).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer applications on a UMFA server.",
        subcommands: [
            CreateApp.self, ListApps.self, ShowApp.self, UpdateApp.self, AddAPIKey.self, ListAPIKeys.self,
            DeleteAPIKey.self, DeleteUser.self, RotateSigningKey.self, CreateClient.self, ListClients.self,
            CreateInitialAccessToken.self, Audit.self, ListConsoleCredentials.self, DeleteConsoleCredential.self,
            ListConsoleSessions.self, DeleteConsoleSession.self,
            MigrateCommand.self, RotateMasterKeyCommand.self,
        ]
    )
}

/// Options every admin command takes.
struct AdminConnection: ParsableArguments {
    @Option(help: "The server, such as http://localhost:8080.")
    var server: String

    @Option(
        name: .customLong("admin-token"), parsing: .unconditional, help: "The admin token (or env UMFA_ADMIN_TOKEN).")
    var adminToken: String?

    func send(
        _ operation: APIOperation, _ parameters: [String: String] = [:], query: [URLQueryItem] = [],
        body: (some ContractBody)? = EmptyBody?.none
    ) async throws -> HTTPClient.Reply {
        guard let token = adminToken ?? ProcessInfo.processInfo.environment["UMFA_ADMIN_TOKEN"] else {
            throw ValidationError("give --admin-token or set UMFA_ADMIN_TOKEN")
        }
        return try await HTTPClient(server: server).send(
            operation, parameters, query: query, bearer: token, body: body)
    }
}

/// Settings shared by create-app and update-app.
struct ApplicationSettingsOptions: ParsableArguments {
    @Option(help: "A name for the application.")
    var name: String?

    @Option(name: .customLong("rp-id"), help: "The WebAuthn RP ID, such as example.com.")
    var rpID: String?

    @Option(name: .customLong("rp-name"), help: "The name authenticators show.")
    var rpName: String?

    @Option(help: "An allowed origin (web or native-app); repeat for several.")
    var origin: [String] = []

    @Option(
        name: .customLong("related-origin"),
        help: "A related origin (WebAuthn L3 §5.11) served at /.well-known/webauthn; repeat for several.")
    var relatedOrigin: [String] = []

    @Flag(name: .customLong("clear-related-origins"), help: "Remove every related origin.")
    var clearRelatedOrigins = false

    @Option(help: "Enrollment policy: grant (default) or open (development only).")
    var policy: String?

    @Option(name: .customLong("user-verification"), help: "required, preferred or discouraged.")
    var userVerification: String?

    @Option(help: "Attestation: none, indirect, direct or enterprise.")
    var attestation: String?

    @Option(name: .customLong("token-ttl"), help: "Login token lifetime in seconds.")
    var tokenTTL: Int?

    @Option(
        name: .customLong("token-signing-alg"),
        help: "The algorithm of login and OAuth tokens: RS256 (default), ES256 or EdDSA.")
    var tokenSigningAlg: String?

    @Option(help: "Account creation on the hosted pages: enabled (default) or disabled.")
    var signup: String?

    @Option(
        name: .customLong("apple-app-id"),
        help: "An iOS app (TEAMID.bundle.id) for apple-app-site-association; repeat for several.")
    var appleAppID: [String] = []

    @Option(
        name: .customLong("android-app"),
        help: "An Android app for assetlinks.json, as package.name=AB:CD:…(SHA-256 fingerprint); repeat for several.")
    var androidApp: [String] = []

    @Option(
        name: .customLong("allowed-scope"),
        help: "A scope self-registered OAuth clients may ask for (RFC 7591); repeat for several.")
    var allowedScope: [String] = []

    @Option(
        name: .customLong("resource-indicator"),
        help: "A resource (RFC 8707 absolute URI) access tokens may be issued for; repeat for several.")
    var resourceIndicator: [String] = []

    @OptionGroup var ceremony: CeremonyPreferenceOptions

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Any setting by its admin API name: name=value, the value as JSON (true, 300, [\"a\"]) or else a string; repeat for several.",
            valueName: "name=value"))
    var set: [String] = []

    /// The settings given, as the admin API takes them.
    var body: ApplicationSettingsRequest {
        get throws {
            let settings = ApplicationSettings(
                name: name, rpID: rpID, rpName: rpName, origins: origin.isEmpty ? nil : origin,
                relatedOrigins: try relatedOriginsSetting, enrollmentPolicy: policy,
                userVerification: userVerification, attestation: attestation,
                tokenTTLSeconds: tokenTTL, signup: signup, tokenSigningAlg: tokenSigningAlg,
                appleAppIDs: appleAppID.isEmpty ? nil : appleAppID,
                androidApps: androidApp.isEmpty ? nil : try androidApp.map(Self.androidApp),
                allowedScopes: allowedScope.isEmpty ? nil : allowedScope,
                resourceIndicators: resourceIndicator.isEmpty ? nil : resourceIndicator)
            var request = try ceremony.applied(to: ApplicationSettingsRequest(settings))
            for assignment in set { request.settings = try Self.setting(assignment, in: request.settings) }
            return request
        }
    }

    /// `settings` with one `--set name=value` applied: the value read as JSON, or as a string
    /// when it is not JSON.
    static func setting(_ assignment: String, in settings: ApplicationSettings) throws -> ApplicationSettings {
        let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let member = ApplicationSettings.Member(stringValue: parts[0]) else {
            let names = ApplicationSettings.Member.allCases.map(\.stringValue).joined(separator: ", ")
            throw ValidationError("--set takes name=value, name one of: \(names)")
        }
        let value =
            (try? JSONDecoder().decode(JSONValue.self, from: Data(parts[1].utf8))) ?? .string(parts[1])
        do {
            return try settings.setting(member, to: value)
        } catch {
            throw ValidationError("--set \(member.stringValue): the value does not fit the setting's type")
        }
    }

    /// `--related-origin` values, `[]` for `--clear-related-origins`, `nil` for neither.
    var relatedOriginsSetting: [String]? {
        get throws {
            if clearRelatedOrigins {
                guard relatedOrigin.isEmpty else {
                    throw ValidationError("give --related-origin or --clear-related-origins, not both")
                }
                return []
            }
            return relatedOrigin.isEmpty ? nil : relatedOrigin
        }
    }

    /// `package.name=FINGERPRINT[,FINGERPRINT…]`.
    static func androidApp(_ text: String) throws -> AndroidApp {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValidationError("--android-app takes package.name=SHA256:FINGER:PRINT[,another]")
        }
        return AndroidApp(
            packageName: parts[0], sha256CertFingerprints: parts[1].split(separator: ",").map(String.init))
    }
}

extension AdminCommand {
    struct CreateApp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-app", abstract: "Create an application; prints it with its first API key.")
        @OptionGroup var connection: AdminConnection
        @OptionGroup var settings: ApplicationSettingsOptions

        func run() async throws {
            guard let name = settings.name, let rpID = settings.rpID, !settings.origin.isEmpty else {
                throw ValidationError("create-app needs --name, --rp-id and at least one --origin")
            }
            let body = CreateApplicationRequest(
                name: name, rpID: rpID, origins: settings.origin, settings: try settings.body)
            try HTTPClient.finish(try await connection.send(.createApplication, body: body))
        }
    }

    struct ListApps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list-apps", abstract: "List applications.")
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.listApplications))
        }
    }

    struct ShowApp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show-app", abstract: "Show an application.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.getApplication, ["id": app]))
        }
    }

    struct UpdateApp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update-app", abstract: "Change an application's settings (only those given).")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String
        @OptionGroup var settings: ApplicationSettingsOptions

        func run() async throws {
            try HTTPClient.finish(
                try await connection.send(.updateApplication, ["id": app], body: try settings.body))
        }
    }

    struct AddAPIKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-api-key", abstract: "Add an API key; older keys keep working.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.createAPIKey, ["id": app]))
        }
    }

    struct ListAPIKeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-api-keys", abstract: "List an application's API key ids (never the keys).")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.listAPIKeys, ["id": app]))
        }
    }

    struct DeleteAPIKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-api-key", abstract: "Revoke an API key at once, on every instance.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String
        @Option(name: .customLong("key-id"), parsing: .unconditional, help: "The key id from list-api-keys.")
        var keyID: String

        func run() async throws {
            try HTTPClient.finish(
                try await connection.send(.deleteAPIKey, ["id": app, "key_id": keyID]))
        }
    }

    struct DeleteUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-user",
            abstract:
                "Delete a user's whole account: profile, passkeys, recovery codes, device keys, sessions and tokens.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String
        @Option(parsing: .unconditional, help: "The user id.") var user: String

        func run() async throws {
            try HTTPClient.finish(
                try await connection.send(.deleteApplicationUser, ["id": app, "user_id": user]), success: [204])
        }
    }

    struct RotateSigningKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-signing-key",
            abstract: "Start signing login tokens with a new key; older keys keep validating their tokens.",
            discussion: """
                Without options, a new key of every algorithm, sealed with the master key. With --pkcs11-uri and \
                --alg, the key pair the URI names in the server's PKCS #11 token (UMFA_PKCS11_MODULE) signs for \
                that algorithm from now on.
                """)
        @OptionGroup var connection: AdminConnection

        @Option(
            name: .customLong("pkcs11-uri"),
            help: "A key pair in a PKCS #11 token (RFC 7512), such as pkcs11:token=umfa;object=es256.")
        var pkcs11URI: String?

        @Option(help: "The algorithm of the --pkcs11-uri key: ES256 or RS256.")
        var alg: String?

        func validate() throws {
            guard (pkcs11URI == nil) == (alg == nil) else {
                throw ValidationError("--pkcs11-uri and --alg go together")
            }
        }

        func run() async throws {
            let body = pkcs11URI.map { SigningKeyRotationRequest(pkcs11URI: $0, alg: alg) }
            try HTTPClient.finish(try await connection.send(.rotateSigningKey, body: body))
        }
    }
}
