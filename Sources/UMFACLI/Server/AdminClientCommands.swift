import ArgumentParser
import Foundation
import UMFAContract

extension AdminCommand {
    /// `umfa admin create-client`: registers an OAuth client of an application's OpenID Connect
    /// provider (docs/contract.md §5); prints the answer, with the client secret shown this once.
    struct CreateClient: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-client",
            abstract: "Register an OAuth client of an application's OpenID Connect provider.",
            discussion: "The client secret of a confidential client is printed once; store it now.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String
        @Option(help: "A name for the client.") var name: String
        @Option(name: .customLong("redirect-uri"), help: "A redirect URI, matched exactly; repeat for several.")
        var redirectURIs: [String] = []
        @Option(
            name: .customLong("grant-type"),
            help: """
                authorization_code, refresh_token, client_credentials or \
                urn:ietf:params:oauth:grant-type:device_code; repeat.
                """)
        var grantTypes: [String] = []
        @Option(
            name: .customLong("auth-method"),
            help: """
                Token endpoint authentication: client_secret_basic (default), client_secret_post, none, \
                tls_client_auth (with --tls-subject-dn or a --tls-san-*) or self_signed_tls_client_auth \
                (with --tls-certificate).
                """)
        var authMethod: String?
        @Option(help: "The space-separated scopes the client may ask for.") var scope: String?
        @Flag(name: .customLong("first-party"), help: "Skip the consent screen for this client.")
        var firstParty = false
        @Option(name: .customLong("access-token-ttl"), help: "Access token lifetime in seconds (60-86400).")
        var accessTokenTTL: Int?
        @Flag(
            name: .customLong("dcr-template"),
            help: "A template for dynamic registration: gets scope dcr by client_credentials; new clients copy it.")
        var dcrTemplate = false
        @OptionGroup var tls: ClientCertificateOptions

        func run() async throws {
            let grants = grantTypes.isEmpty ? nil : grantTypes
            var request = OAuthClientRequest(
                clientName: name, redirectURIs: redirectURIs.isEmpty ? nil : redirectURIs, grantTypes: grants,
                responseTypes: grants.map { $0.contains("authorization_code") ? ["code"] : [] },
                tokenEndpointAuthMethod: authMethod, scope: scope, firstParty: firstParty ? true : nil,
                accessTokenTTLSeconds: accessTokenTTL)
            request.dcrTemplate = dcrTemplate ? true : nil
            try tls.apply(to: &request)
            try HTTPClient.finish(try await connection.send(.createOAuthClient, ["id": app], body: request))
        }
    }

    /// `umfa admin list-clients`: an application's OAuth clients, never their secrets.
    struct ListClients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-clients", abstract: "List an application's OAuth clients (never their secrets).")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String

        func run() async throws {
            try HTTPClient.finish(try await connection.send(.listOAuthClients, ["id": app]))
        }
    }

    /// `umfa admin create-initial-access-token`: a token for dynamic client registration
    /// (RFC 7591) at the application's registration endpoint; printed once.
    struct CreateInitialAccessToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-initial-access-token",
            abstract: "Issue an initial access token for dynamic client registration (RFC 7591).",
            discussion: "The token is printed once; give it to the client that registers itself.")
        @OptionGroup var connection: AdminConnection
        @Option(help: "The application id.") var app: String
        @Option(help: "How long it works, in seconds (60-2592000; default 86400).") var ttl: Int?
        @Option(help: "How many clients it may register (1-1000; default 1).") var uses: Int?
        @Option(help: "Space-separated scopes its clients may ask for (default: the application's allowed scopes).")
        var scope: String?

        func run() async throws {
            let request = InitialAccessTokenRequest(ttlSeconds: ttl, uses: uses, scope: scope)
            try HTTPClient.finish(try await connection.send(.createInitialAccessToken, ["id": app], body: request))
        }
    }
}
