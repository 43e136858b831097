import Foundation
import Testing
import UMFAContract
import UMFAStorage

/// OAuth clients read with their application: what every token endpoint request asks of the
/// store before it authenticates the client, on both engines.
struct OAuthClientStoreTests {
    /// A client with every optional column set, so each one must come back through the join.
    static func client(_ clientID: String, of applicationID: UUID) -> OAuthClientRecord {
        var client = OAuthClientRecord(
            clientID: clientID, applicationID: applicationID, createdAt: Records.time(5),
            settings: .example, secretHash: Records.bytes(32), sealedSecret: Records.bytes(48),
            registrationTokenHash: Records.bytes(32))
        client.name = "client \(clientID)"
        return client
    }

    @Test(
        "one statement reads an application and its client: the client only when it is that application's, by its exact bytes",
        arguments: Engine.allCases)
    func applicationWithClient(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let precomposed = "caf\u{E9}"
            let mine = Self.client(precomposed, of: app.id)
            let theirs = Self.client("theirs", of: other.id)
            try await store.insertOAuthClient(mine)
            try await store.insertOAuthClient(theirs)

            let found = try #require(try await store.application(id: app.id, withOAuthClient: precomposed))
            #expect(found.application == app)
            #expect(found.client == mine)
            #expect(found.client == (try await store.oauthClient(applicationID: app.id, clientID: precomposed)))

            // Another application's client, an unknown one and another spelling of the same
            // text (decomposed é): the application alone.
            for clientID in ["theirs", "nobody", "cafe\u{301}"] {
                let alone = try #require(try await store.application(id: app.id, withOAuthClient: clientID))
                #expect(alone.application == app, "\(clientID)")
                #expect(alone.client == nil, "\(clientID)")
            }
            let otherFound = try #require(try await store.application(id: other.id, withOAuthClient: "theirs"))
            #expect(otherFound.application == other)
            #expect(otherFound.client == theirs)
            #expect(try await store.application(id: UUID(), withOAuthClient: precomposed) == nil)
        }
    }

    @Test(
        "a mutual-TLS client's subject and certificate binding (RFC 8705) come back through the join and an update",
        arguments: Engine.allCases)
    func mutualTLSClient(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            var client = Self.client("mtls", of: app.id)
            client.authenticationMethod = .tlsClientAuth
            client.secretHash = nil
            client.tlsClientAuthSubject = .subjectDN("CN=billing,O=Example \\, Inc.")
            client.tlsCertificateBoundAccessTokens = true
            try await store.insertOAuthClient(client)
            #expect(try await store.application(id: app.id, withOAuthClient: "mtls")?.client == client)

            client.authenticationMethod = .selfSignedTLSClientAuth
            client.tlsClientAuthSubject = .sanIP("2001:db8::7")
            client.tlsCertificateBoundAccessTokens = false
            #expect(try await store.updateOAuthClient(client))
            #expect(try await store.oauthClient(applicationID: app.id, clientID: "mtls") == client)
        }
    }
}
