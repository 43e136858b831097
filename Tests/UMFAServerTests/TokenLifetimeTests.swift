import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §4, login tokens: `exp − iat` within the TTL, retired keys stop validating,
/// deleting a credential ends its tokens, one spelling per token.
@Suite("Login tokens: lifetime, rotation, revocation, spelling")
struct TokenLifetimeTests {
    static let prefix = ValidateTokenTests.jwtPrefix

    /// An application with alice enrolled and signed in: her token.
    static func signedIn(_ api: API) async throws -> (TestApplication, CeremonyResult) {
        let app = try await api.createApplication(policy: "grant")
        let device = Device.make()
        _ = try await api.register(
            app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
        return (app, try await api.authenticate(app, user: "alice", device: device))
    }

    @Test("a token signed to live longer than the application's TTL is refused")
    func lifetimeBounded() async throws {
        try await TestServer.with { api in
            let (app, login) = try await Self.signedIn(api)
            let jwt = try CompactJWT(login.token)
            let signer = try await ServerSigningKey.load(from: api.directory)
            guard case .number(let iat) = jwt.claims["iat"] else { throw TestFailure("no iat") }
            let longLived = try jwt.resigned(changing: ["exp": .number(iat + 301)], with: signer.key)
            expectError(
                try await api.validate(app, user: "alice", token: .string(longLived)), .unauthorized,
                message: Self.prefix + "the token lives longer than the application's token TTL")
            let exact = try jwt.resigned(changing: ["exp": .number(iat + 300)], with: signer.key)
            #expect(try await api.validate(app, user: "alice", token: .string(exact)).status == .ok)
        }
    }

    @Test("a retired key validates what it signed before, nothing signed after, and leaves JWKS after the longest TTL")
    func retiredKeys() async throws {
        try await TestServer.with { api in
            let (app, login) = try await Self.signedIn(api)
            let jwt = try CompactJWT(login.token)
            let retired = try await ServerSigningKey.load(from: api.directory)
            api.clock.advance(by: 10)
            let rotated = try await api.send(.post, APIOperation.rotateSigningKey.path, bearer: TestServer.adminToken)
            #expect(rotated.status == .created)
            #expect(try await api.validate(app, user: "alice", token: .string(login.token)).status == .ok)

            // Someone holding the retired key mints a fresh token: refused.
            api.clock.advance(by: 10)
            let now = Int64(api.clock.now.timeIntervalSince1970)
            let minted = try jwt.resigned(
                changing: ["iat": .number(Double(now)), "exp": .number(Double(now + 300))], with: retired.key)
            expectError(
                try await api.validate(app, user: "alice", token: .string(minted)), .unauthorized,
                message: Self.prefix + "the token was issued after its signing key was retired")

            let before = try await api.send(.get, APIOperation.jwks.path)
            #expect(before["keys"]?.arrayValue?.count == 6, "three retired keys and three current, one per algorithm")
            api.clock.advance(by: 86_400)
            let after = try await api.send(.get, APIOperation.jwks.path)
            let rotatedKIDs = Set(rotated["kids"]?.objectValue?.values.compactMap(\.stringValue) ?? [])
            #expect(rotatedKIDs.count == 3)
            #expect(rotated["kids"]?["RS256"] == rotated["kid"])
            #expect(Set(after["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []) == rotatedKIDs)
        }
    }

    @Test("deleting a credential ends the login tokens it signed in with")
    func deletedCredential() async throws {
        try await TestServer.with { api in
            let (app, login) = try await Self.signedIn(api)
            #expect(try await api.validate(app, user: "alice", token: .string(login.token)).status == .ok)
            let path =
                APIOperation.deleteUserCredential.path(["user_id": "alice", "credential_id": login.credentialID])
                + "?application_id=\(app.id)"
            #expect(try await api.send(.delete, path, bearer: app.apiKey).status == .ok)
            expectError(
                try await api.validate(app, user: "alice", token: .string(login.token)), .unauthorized,
                message: Self.prefix + "the credential that signed in is no longer registered")
        }
    }

    @Test("the spare bits of the signature's last character are not a second spelling of the token")
    func canonicalSpelling() async throws {
        try await TestServer.with { api in
            let (app, login) = try await Self.signedIn(api)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            var characters = Array(login.token)
            let signature = login.token.split(separator: ".")[2]
            // RS256 signatures are 256 bytes: the last character carries 2 bits and 4 spare ones.
            #expect(signature.count % 4 == 2)
            let last = try #require(alphabet.firstIndex(of: characters[characters.count - 1]))
            #expect(last & 0x0F == 0, "the server writes the spare bits as zero")
            var accepted = 0
            for spare in 1..<16 {
                characters[characters.count - 1] = alphabet[last | spare]
                let variant = String(characters)
                #expect(
                    Base64URL.decode(String(variant.split(separator: ".")[2])) == Base64URL.decode(String(signature)))
                let reply = try await api.validate(app, user: "alice", token: .string(variant))
                if reply.status == .ok { accepted += 1 }
                expectError(reply, .unauthorized, message: Self.prefix + "the token is not a JWT")
            }
            #expect(accepted == 0)
        }
    }
}
