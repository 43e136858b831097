import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage

@testable import UMFAServer

/// The token endpoint (RFC 6749 §3.2) as the OpenID provider's engine for one issuer composes it
/// (``OpenIDProvider/engine(for:)``), fed ``TokenRequest`` values: no HTTP and no server. The
/// provider comes from the composition root over a SQLite file.
@Suite("OAuth engine from its ports: refresh rotation and reuse, client credentials")
struct OAuthEngineFeatureTests {
    /// A confidential client (`client_secret_post`) allowed every grant, with an API scope.
    static func confidentialClient(_ ports: FeaturePorts, refreshTTL: Int = 2_592_000) async throws -> (
        record: OAuthClientRecord, secret: String
    ) {
        try await ports.addClient {
            $0.authenticationMethod = .clientSecretPost
            $0.grantTypes = ["authorization_code", "refresh_token", "client_credentials"]
            $0.scopes = ["openid", "api.read"]
            $0.redirectURIs = ["https://app.example.com/callback"]
            $0.refreshTokenTTLSeconds = refreshTTL
        }
    }

    /// A token request with `parameters`, form-encoded, from the tests' caller.
    static func request(_ parameters: [(String, String)], _ ports: FeaturePorts) throws -> TokenRequest {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = parameters.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return TokenRequest(
            form: try OAuthForm(encoded: body), authorization: nil, dpopProofs: [], caller: ports.caller,
            url: ports.issuer.tokenEndpoint)
    }

    static func refresh(
        _ token: String?, client: (record: OAuthClientRecord, secret: String), _ engine: OAuthComposition,
        _ ports: FeaturePorts
    ) async throws -> OAuthTokenResponse {
        try await engine.tokenPipeline.token(
            request(
                [
                    ("grant_type", "refresh_token"), ("refresh_token", token ?? ""),
                    ("client_id", client.record.clientID), ("client_secret", client.secret),
                ], ports))
    }

    /// The first tokens of a sign-in of alice, as the code grant issues them.
    static func signedIn(
        _ client: OAuthClientRecord, _ engine: OAuthComposition, _ ports: FeaturePorts
    ) async throws -> OAuthTokenResponse {
        let passkey = try await ports.addPasskey(for: "alice")
        return try await engine.userTokens.issue(
            to: client, signIn: ports.signIn("alice", passkey: passkey), scopes: ["openid"],
            family: "f" + Base64URL.encode(Secrets.randomBytes(16)), nonce: nil)
    }

    @Test("a refresh token rotates: the new pair works, and the spent one presented again revokes the family")
    func rotationAndReuse() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await Self.confidentialClient(ports)
            let first = try await Self.signedIn(client.record, engine, ports)
            let second = try await Self.refresh(first.refreshToken, client: client, engine, ports)
            #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
            #expect(second.idToken != nil)
            let claims = try await engine.accessTokens.validClaims(second.accessToken)
            #expect(claims?.sub == "alice" && claims?.clientID == client.record.clientID)

            // RFC 9700 §4.14.2: the spent token again is refused and ends the whole family.
            let reuse = await #expect(throws: OAuthError.self) {
                try await Self.refresh(first.refreshToken, client: client, engine, ports)
            }
            #expect(reuse?.code == .invalidGrant)
            let events = try await ports.events(.refreshTokenReuseDetected)
            #expect(events.map(\.actor) == ["client:\(client.record.clientID)"])
            #expect(events.first?.userID == "alice")
            let next = await #expect(throws: OAuthError.self) {
                try await Self.refresh(second.refreshToken, client: client, engine, ports)
            }
            #expect(next?.code == .invalidGrant)
            #expect(try await engine.accessTokens.validClaims(second.accessToken) == nil)
        }
    }

    @Test("a refresh token presented by another client is refused and its family revoked for its own client")
    func anotherClient() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let owner = try await Self.confidentialClient(ports)
            let thief = try await Self.confidentialClient(ports)
            let first = try await Self.signedIn(owner.record, engine, ports)
            let stolen = await #expect(throws: OAuthError.self) {
                try await Self.refresh(first.refreshToken, client: thief, engine, ports)
            }
            #expect(stolen?.code == .invalidGrant)
            let after = await #expect(throws: OAuthError.self) {
                try await Self.refresh(first.refreshToken, client: owner, engine, ports)
            }
            #expect(after?.code == .invalidGrant)
            #expect(try await engine.accessTokens.validClaims(first.accessToken) == nil)
        }
    }

    @Test("refresh tokens never outlive the client's refresh TTL from the family's start")
    func familyExpires() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await Self.confidentialClient(ports, refreshTTL: 120)
            let first = try await Self.signedIn(client.record, engine, ports)
            ports.clock.advance(by: 60)
            let second = try await Self.refresh(first.refreshToken, client: client, engine, ports)
            #expect(second.refreshToken != nil)
            ports.clock.advance(by: 61)
            let expired = await #expect(throws: OAuthError.self) {
                try await Self.refresh(second.refreshToken, client: client, engine, ports)
            }
            #expect(expired?.code == .invalidGrant)
        }
    }

    /// The stored grant of a refresh token.
    static func stored(_ token: String?, _ ports: FeaturePorts) async throws -> OAuthGrantRecord? {
        try await ports.store.oauthGrant(
            kind: .refreshToken, handleHash: Secrets.hash(try #require(token)), applicationID: ports.application.id)
    }

    @Test("a refresh after the client's refresh TTL changed: the new token ends with the new TTL, or none is issued")
    func refreshTTLChanged() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            var client = try await Self.confidentialClient(ports, refreshTTL: 3600)
            let first = try await Self.signedIn(client.record, engine, ports)
            // The family's end, in whole seconds: its start plus the TTL.
            func end(_ token: String?) async throws -> Int {
                Int(try #require(try await Self.stored(token, ports)).expiresAt.timeIntervalSince1970.rounded())
            }
            let started = try await end(first.refreshToken) - 3600

            // Unchanged: the successor the rotation stored, with the family's end.
            let second = try await Self.refresh(first.refreshToken, client: client, engine, ports)
            #expect(try await end(second.refreshToken) == started + 3600)

            client.record.refreshTokenTTLSeconds = 7200
            #expect(try await ports.store.updateOAuthClient(client.record))
            let third = try await Self.refresh(second.refreshToken, client: client, engine, ports)
            #expect(try await end(third.refreshToken) == started + 7200)
            let lengthened = try #require(try await Self.stored(third.refreshToken, ports))
            #expect(lengthened.consumedAt == nil)

            // Shortened below the family's age: no refresh token, and no live grant left in the family.
            ports.clock.advance(by: 120)
            client.record.refreshTokenTTLSeconds = 60
            #expect(try await ports.store.updateOAuthClient(client.record))
            let last = try await Self.refresh(third.refreshToken, client: client, engine, ports)
            #expect(last.refreshToken == nil)
            let family = try #require(lengthened.family)
            #expect(
                try await ports.store.revokeOAuthGrantFamily(
                    applicationID: ports.application.id, family: family, at: ports.clock.now) == 0)
        }
    }

    @Test("a refresh of a sign-in whose passkey is gone is refused, its family revoked, and no successor kept")
    func passkeyGone() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await Self.confidentialClient(ports)
            let first = try await Self.signedIn(client.record, engine, ports)
            let grant = try #require(try await Self.stored(first.refreshToken, ports))
            // Deleted in the store alone, without the revocation a deletion makes: the check at
            // use refuses it all the same.
            #expect(
                try await ports.store.deleteCredential(
                    applicationID: ports.application.id, userID: "alice",
                    credentialID: try #require(grant.credentialID)))
            let refused = await #expect(throws: OAuthError.self) {
                try await Self.refresh(first.refreshToken, client: client, engine, ports)
            }
            #expect(refused?.code == .invalidGrant)
            #expect(try await engine.grants.isFamilyRevoked(try #require(grant.family)))
            #expect(
                try await ports.store.revokeOAuthGrantFamily(
                    applicationID: ports.application.id, family: try #require(grant.family), at: ports.clock.now)
                    == 0)
        }
    }

    @Test("a refreshed ID token has the profile claims of its scopes, read with the rotation")
    func refreshedProfile() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await Self.confidentialClient(ports)
            let passkey = try await ports.addPasskey(for: "alice")
            try await ports.store.saveUserProfile(
                UserProfileRecord(
                    applicationID: ports.application.id, userID: "alice", email: "alice@example.com",
                    emailVerified: true, givenName: "Alice", familyName: nil, phoneNumber: nil,
                    phoneNumberVerified: false, updatedAt: ports.clock.now))
            let first = try await engine.userTokens.issue(
                to: client.record, signIn: ports.signIn("alice", passkey: passkey), scopes: ["openid", "email"],
                family: "f" + Base64URL.encode(Secrets.randomBytes(16)), nonce: nil)
            let second = try await Self.refresh(first.refreshToken, client: client, engine, ports)
            let parts = try #require(second.idToken).split(separator: ".")
            let claims = try JSONSerialization.jsonObject(with: Data(try #require(Base64URL.decode(String(parts[1])))))
            let object = try #require(claims as? [String: Any])
            #expect(object["email"] as? String == "alice@example.com")
            #expect(object["email_verified"] as? Bool == true)
            #expect(object["given_name"] == nil, "profile was not granted")
        }
    }

    @Test("client_credentials: a confidential client gets a token for itself; a wrong secret or scope is refused")
    func clientCredentials() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await Self.confidentialClient(ports)
            func grant(secret: String, scope: String) async throws -> OAuthTokenResponse {
                try await engine.tokenPipeline.token(
                    Self.request(
                        [
                            ("grant_type", "client_credentials"), ("scope", scope),
                            ("client_id", client.record.clientID), ("client_secret", secret),
                        ], ports))
            }
            let answer = try await grant(secret: client.secret, scope: "api.read")
            #expect(answer.scope == "api.read" && answer.refreshToken == nil && answer.idToken == nil)
            let claims = try await engine.accessTokens.validClaims(answer.accessToken)
            #expect(claims?.sub == client.record.clientID && claims?.scope == "api.read")

            let wrongSecret = await #expect(throws: OAuthError.self) {
                try await grant(secret: client.secret + "x", scope: "api.read")
            }
            #expect(wrongSecret?.code == .invalidClient)
            let wrongScope = await #expect(throws: OAuthError.self) {
                try await grant(secret: client.secret, scope: "api.write")
            }
            #expect(wrongScope?.code == .invalidScope)
        }
    }

    @Test("client_credentials is refused to a client not registered for it")
    func notRegisteredForGrant() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let engine = ports.composition().provider.engine(for: ports.issuer)
            let client = try await ports.addClient {
                $0.authenticationMethod = .clientSecretPost
                $0.scopes = ["openid", "api.read"]
            }
            let refused = await #expect(throws: OAuthError.self) {
                try await engine.tokenPipeline.token(
                    Self.request(
                        [
                            ("grant_type", "client_credentials"), ("scope", "api.read"),
                            ("client_id", client.record.clientID), ("client_secret", client.secret),
                        ], ports))
            }
            #expect(refused?.code == .unauthorizedClient)
        }
    }
}
