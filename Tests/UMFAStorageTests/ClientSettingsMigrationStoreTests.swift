import Foundation
import Testing
import UMFAContract
import UMFAEncoding

@testable import UMFAStorage

/// Migration 15 on a database of version 14: each OAuth client's settings columns become its
/// settings document, built in SQL on each engine, with every value as it was — text that needs
/// JSON escapes included — and the columns that held them are gone.
@Suite("Storage: OAuth client settings become one document")
struct ClientSettingsMigrationStoreTests {
    /// A name with each kind of character the document must escape or keep.
    static let awkwardName = "Shop \"quoted\" \\ back\tslash\nline \u{01}\u{1F} caf\u{E9} \u{1F600}"

    @Test("version 14 clients read back unchanged from their settings document", arguments: Engine.allCases)
    func upgrade(engine: Engine) async throws {
        let location = try await StoreLocation.make(engine)
        do {
            try await upgrade(location)
        } catch {
            await location.remove()
            throw error
        }
        await location.remove()
    }

    func upgrade(_ location: StoreLocation) async throws {
        let app = UUID()
        let old = try await executor(location, version: 14)
        _ = try await old.rows(
            StoreQuery(
                """
                INSERT INTO applications (id, name, rp_id, rp_name, origins, enrollment_policy, user_verification,
                    attestation, token_ttl_seconds, created_at)
                    VALUES (?, 'Shop', 'example.com', 'Shop', '["https://app.example.com"]', 'grant', 'preferred',
                    'none', 300, 0)
                """, [.uuid(app)]))
        let columns = """
            client_id, application_id, client_name, secret_hash, redirect_uris, grant_types, response_types,
            auth_method, scopes, post_logout_redirect_uris, first_party, access_token_ttl_seconds,
            refresh_token_ttl_seconds, created_at, require_par, dpop_bound, jwks, sealed_secret, dcr_template,
            software_id, registration_token_hash, attestation_required, tls_client_auth_subject, tls_bound
            """
        let insert =
            "INSERT INTO oauth_clients (\(columns)) VALUES (\(Array(repeating: "?", count: 24).joined(separator: ", ")))"
        _ = try await old.rows(
            StoreQuery(
                insert,
                [
                    .text("full"), .uuid(app), .text(Self.awkwardName), .bytes([1, 2, 3]),
                    .text(#"["https:\/\/rp.example\/cb"]"#), .text(#"["authorization_code","refresh_token"]"#),
                    .text(#"["code"]"#), .text("tls_client_auth"), .text(#"["openid","email"]"#),
                    .text(#"["https:\/\/rp.example\/bye"]"#), .integer(1), .integer(300), .integer(86_400),
                    .integer(5_000), .integer(1), .integer(0), .text(#"{"keys":[{"kty":"EC"}]}"#), .bytes([4, 5]),
                    .integer(1), .text("template \"1\""), .bytes([6, 7]), .integer(0),
                    .text(#"{"tls_client_auth_san_dns":"rp.example"}"#), .integer(1),
                ]))
        _ = try await old.rows(
            StoreQuery(
                insert,
                [
                    .text("bare"), .uuid(app), .text("Bare"), .null, .text("[]"), .text(#"["client_credentials"]"#),
                    .text("[]"), .text("client_secret_basic"), .text("[]"), .text("[]"), .integer(0), .integer(600),
                    .integer(2_592_000), .integer(6_000), .integer(0), .integer(1), .null, .null, .integer(0), .null,
                    .null, .integer(1), .null, .integer(0),
                ]))
        try await old.close()

        let store = try await location.open()
        var full = OAuthClientRecord(
            clientID: "full", applicationID: app, createdAt: Date(timeIntervalSince1970: 5),
            secretHash: [1, 2, 3], sealedSecret: [4, 5], registrationTokenHash: [6, 7])
        full.name = Self.awkwardName
        full.redirectURIs = ["https://rp.example/cb"]
        full.grantTypes = ["authorization_code", "refresh_token"]
        full.responseTypes = ["code"]
        full.authenticationMethod = .tlsClientAuth
        full.scopes = ["openid", "email"]
        full.postLogoutRedirectURIs = ["https://rp.example/bye"]
        full.firstParty = true
        full.accessTokenTTLSeconds = 300
        full.refreshTokenTTLSeconds = 86_400
        full.requirePushedAuthorizationRequests = true
        full.dpopBoundAccessTokens = false
        full.settings.jwks = .object(["keys": .array([.object(["kty": .string("EC")])])])
        full.dcrTemplate = true
        full.softwareID = "template \"1\""
        full.attestationRequired = false
        full.tlsClientAuthSubject = .sanDNS("rp.example")
        full.tlsCertificateBoundAccessTokens = true
        #expect(try await store.oauthClient(applicationID: app, clientID: "full") == full)

        var bare = OAuthClientRecord(clientID: "bare", applicationID: app, createdAt: Date(timeIntervalSince1970: 6))
        bare.name = "Bare"
        bare.grantTypes = ["client_credentials"]
        bare.responseTypes = []
        bare.scopes = []
        bare.dpopBoundAccessTokens = true
        bare.attestationRequired = true
        let read = try #require(try await store.oauthClient(applicationID: app, clientID: "bare"))
        #expect(read == bare)
        #expect(read.settings.jwks == nil && read.settings.softwareID == nil && read.tlsClientAuthSubject == nil)
        try await store.close()

        // The columns that held the settings are gone: a write naming one fails.
        let upgraded = try await executor(location, version: Schema.migrations.count)
        await #expect(throws: (any Error).self) {
            _ = try await upgraded.rows(StoreQuery("SELECT client_name FROM oauth_clients"))
        }
        try await upgraded.close()
    }

    /// An executor on `location` with the first `version` migrations applied.
    func executor(_ location: StoreLocation, version: Int) async throws -> any SQLExecutor {
        let executor: any SQLExecutor
        switch location.engine {
        case .sqlite:
            executor = try await SQLiteExecutor.open(path: location.address, logger: TestDatabase.logger)
        case .postgres:
            let postgres = PostgresExecutor(
                configuration: try PostgresStore.configuration(location.address),
                leaseTimeout: try PostgresStore.connectTimeout(location.address), logger: TestDatabase.logger)
            postgres.startStandalone()
            executor = postgres
        }
        try await executor.migrate(Array(Schema.migrations.prefix(version)))
        return executor
    }
}
