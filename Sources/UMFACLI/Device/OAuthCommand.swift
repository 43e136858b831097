import ArgumentParser
import Foundation
import UMFA
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// `umfa oauth signup / login / refresh / revoke`, and `device` (``OAuthDeviceCommand``): the SDK's passkey account client and token
/// manager from the shell (docs/contract.md §9). Sign-up and login run the API-driven flow (§6) as a
/// public client with DPoP and PKCE; the DPoP key and the passkeys stay in `--device-dir`, so a
/// later `refresh` from the same directory proves the same key.
struct OAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth", abstract: "Sign up, log in, refresh or revoke through an issuer's API-driven flow.",
        subcommands: [SignUp.self, LogIn.self, Refresh.self, Revoke.self, OAuthDeviceCommand.self])

    struct SignUp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signup", abstract: "Create an account with a passkey on this device; print the tokens.")
        @OptionGroup var client: OAuthClientOptions
        @Option(parsing: .unconditional, help: "The new account's email address.") var email: String
        @Option(name: .customLong("given-name"), parsing: .unconditional) var givenName: String?
        @Option(name: .customLong("family-name"), parsing: .unconditional) var familyName: String?
        @Option(name: .customLong("phone-number"), parsing: .unconditional) var phoneNumber: String?
        @Option(name: .customLong("device-name"), help: "A name for the new passkey.") var deviceName: String?

        func run() async throws {
            let accounts = try client.accounts()
            let profile = AccountProfile(
                email: email, givenName: givenName, familyName: familyName, phoneNumber: phoneNumber)
            try await OAuthClientOptions.report { () async throws(FlowError) in
                try await accounts.signUp(profile: profile, friendlyName: deviceName, scopes: client.scopes)
            }
        }
    }

    struct LogIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login", abstract: "Sign in with this device's passkey; print the tokens.")
        @OptionGroup var client: OAuthClientOptions
        @Option(parsing: .unconditional, help: "The account's email address (none: any passkey of this device).")
        var email: String?

        func run() async throws {
            let accounts = try client.accounts()
            try await OAuthClientOptions.report { () async throws(FlowError) in
                try await accounts.logIn(email: email, scopes: client.scopes)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Exchange a refresh token (bound to this device's DPoP key) for new tokens.")
        @OptionGroup var client: OAuthClientOptions
        @Option(parsing: .unconditional, help: "The refresh token, or - to read it from standard input.")
        var token: String

        func run() async throws {
            let manager = try client.manager()
            let refreshToken = try OAuthClientOptions.secret(token)
            do throws(ZSMError) {
                let tokens = try await manager.refreshAccessToken(with: refreshToken).get()
                OAuthClientOptions.print(tokens, claims: nil)
            } catch {
                CommandIO.printError(error.description)
                throw ExitCode(1)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a token (a refresh token ends its whole family).")
        @OptionGroup var client: OAuthClientOptions
        @Option(parsing: .unconditional, help: "The token, or - to read it from standard input.") var token: String

        func run() async throws {
            let manager = try client.manager()
            let given = try OAuthClientOptions.secret(token)
            do throws(ZSMError) {
                try await manager.revoke(given)
                FileHandle.standardOutput.write(Data("{\"revoked\":true}\n".utf8))
            } catch {
                CommandIO.printError(error.description)
                throw ExitCode(1)
            }
        }
    }
}

/// What every `umfa oauth` command takes.
struct OAuthClientOptions: ParsableArguments {
    @Option(help: "The issuer, such as http://localhost:8080/oidc/<application id>.") var issuer: String
    @Option(name: .customLong("client-id"), help: "The public client's id.") var clientID: String
    @Option(help: "Space-separated scopes.") var scope = "openid profile email offline_access"
    @Option(name: .customLong("redirect-uri"), help: "The client's registered redirect URI.")
    var redirectURI = "http://127.0.0.1/callback"
    @Option(help: "The WebAuthn origin; the issuer's origin by default.") var origin: String?
    @Option(name: .customLong("device-dir"), help: "Where this device keeps its passkeys and DPoP key.")
    var deviceDir: String = ".umfa/device"
    @Flag(name: .customLong("pin-stdin"), help: "Read the PIN from standard input.") var pinStdin = false
    @Flag(name: .customLong("allow-consent"), help: "Allow the scopes when the client asks for consent.")
    var allowConsent = false
    @OptionGroup var tls: TLSClientOptions

    var scopes: [String] { scope.split(separator: " ").map(String.init) }

    /// The device (`ZSMConfig`) and OAuth configurations: the server and application are the
    /// issuer's (`<server>/oidc/<application id>`).
    func configurations() throws -> (ZSMConfig, OAuthConfiguration) {
        var text = issuer
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), url.host != nil, let marker = text.range(of: "/oidc/", options: .backwards),
            let server = URL(string: String(text[..<marker.lowerBound])),
            UUID(uuidString: String(text[marker.upperBound...])) != nil
        else { throw ValidationError("--issuer must be <server>/oidc/<application id>") }
        var device = ZSMConfig(hostURL: server, applicationId: String(text[marker.upperBound...]))
        device.storageLocation = URL(fileURLWithPath: deviceDir)
        device.origin = origin
        if pinStdin {
            let pin = StandardInput.firstLine()
            device.userVerification = .pin { _ in pin }
        }
        var oauth = OAuthConfiguration(issuer: url, clientId: clientID, redirectURI: redirectURI, scopes: scopes)
        oauth.timeout = 30
        // A client certificate (RFC 8705 `tls_client_auth`: `client_id` and the certificate)
        // and pins go through the TLS transport, for the flow's ceremonies as for the tokens.
        if let transport = try tls.transport() {
            oauth.transport = transport
            device.transport = transport
        }
        return (device, oauth)
    }

    func accounts() throws -> PasskeyAccountClient {
        let (device, oauth) = try configurations()
        let allow = allowConsent
        do throws(ZSMError) {
            return try PasskeyAccountClient(device: device, oauth: oauth) { _, _ in allow }
        } catch {
            throw ValidationError(error.description)
        }
    }

    func manager() throws -> OAuthTokenManager {
        let (device, oauth) = try configurations()
        do throws(ZSMError) {
            return try OAuthTokenManager(configuration: oauth, device: device)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `-` reads the value from standard input.
    static func secret(_ value: String) throws -> String {
        guard value == "-" else { return value }
        guard let line = StandardInput.firstLine() else { throw ValidationError("standard input holds no token") }
        return line
    }

    /// Prints the tokens and claims as one JSON object, or the error with exit 1.
    static func report(_ body: () async throws(FlowError) -> AccountTokens) async throws {
        do throws(FlowError) {
            let account = try await body()
            print(account.tokens, claims: account.claims)
        } catch {
            var message = error.message
            if let problem = error.problem { message += " (\(problem.type.rawValue))" }
            CommandIO.printError("\(message); recovery: \(error.recovery.rawValue)")
            throw ExitCode(1)
        }
    }

    static func print(_ tokens: OAuthTokenResponse, claims: [String: JSONValue]?) {
        var object: [String: JSONValue] = [
            "access_token": .string(tokens.accessToken), "token_type": .string(tokens.tokenType),
            "expires_in": .number(Double(tokens.expiresIn)),
        ]
        if let value = tokens.idToken { object["id_token"] = .string(value) }
        if let value = tokens.refreshToken { object["refresh_token"] = .string(value) }
        if let value = tokens.scope { object["scope"] = .string(value) }
        if let claims { object["claims"] = .object(claims) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(((try? encoder.encode(object)) ?? Data()) + Data("\n".utf8))
    }
}
