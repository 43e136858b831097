import Foundation
import Logging
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

@testable import UMFAServer

@Suite("Restart")
struct RestartTests {
    @Test("tokens, signing keys, users and grants survive a restart; no secret is stored in clear")
    func survivesRestart() async throws {
        let server = TestServer()
        defer { server.remove() }
        let device = Device.make()
        let (app, alice, bobsGrant, usedGrant, kid) = try await server.run { api in
            let app = try await api.createApplication(policy: "grant")
            let grant = try await api.enrollmentToken(app, user: "alice")
            let alice = try await api.register(app, user: "alice", device: device, enrollmentToken: grant)
            let bobsGrant = try await api.enrollmentToken(app, user: "bob")
            let kid = try await api.send(.get, APIOperation.jwks.path)["keys"]?.arrayValue?
                .first { $0["alg"]?.stringValue == "RS256" }?["kid"]
            return (app, alice, bobsGrant, grant, kid)
        }

        let files = try FileManager.default.contentsOfDirectory(atPath: server.directory.path)
        #expect(files.contains("umfa.sqlite"))
        let masterKeyFile = server.directory.appendingPathComponent("master.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: masterKeyFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let masterKey = try #require(FileManager.default.contents(atPath: masterKeyFile))
        #expect(masterKey.count == 32)

        let signer = try await ServerSigningKey.load(from: server.directory)
        let privateDER = signer.key.derRepresentation
        var stored = Data()
        for file in files where file != "master.key" {
            stored.append(
                try #require(FileManager.default.contents(atPath: server.directory.appendingPathComponent(file).path)))
        }
        let secrets: [(String, Data)] = [
            ("API key", Data(app.apiKey.utf8)), ("admin token", Data(TestServer.adminToken.utf8)),
            ("used enrollment token", Data(usedGrant.utf8)), ("unused enrollment token", Data(bobsGrant.utf8)),
            ("private key DER", privateDER), ("private key base64", Data(privateDER.base64EncodedString().utf8)),
            ("private key base64url", Data(Base64URL.encode(privateDER).utf8)), ("master key", masterKey),
            ("master key base64url", Data(Base64URL.encode(masterKey).utf8)),
        ]
        #expect(stored.count > 10_000)
        for (name, secret) in secrets {
            #expect(stored.range(of: secret) == nil, "\(name) is stored in clear")
        }

        try await server.run { api in
            let valid = try await api.validate(app, user: "alice", token: .string(alice.token))
            #expect(valid.status == .ok, "\(valid.text)")
            let signIn = try await api.authenticate(app, user: "alice", device: device)
            #expect(signIn.credentialID == alice.credentialID)
            let jwt = try CompactJWT(signIn.token)
            #expect(jwt.header["kid"] == kid)
            let bob = try await api.register(app, user: "bob", device: Device.make(), enrollmentToken: bobsGrant)
            #expect(bob.userID == "bob")
            let admin = try await api.send(
                .get, APIOperation.getApplication.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(admin.status == .ok)
        }
    }

    @Test("expired enrollment tokens and challenges are purged when the server starts")
    func purgesExpired() async throws {
        let server = TestServer()
        defer { server.remove() }
        let (app, expiring, lasting) = try await server.run { api in
            let app = try await api.createApplication(policy: "grant")
            let expiring = try await api.enrollmentToken(app, user: "alice", ttl: 60)
            let lasting = try await api.enrollmentToken(app, user: "bob", ttl: 3600)
            return (app, expiring, lasting)
        }
        server.clock.advance(by: 120)
        try await server.run { _ in }

        let store = try await SQLiteStore.open(
            path: server.directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
        let applicationID = try #require(UUID(uuidString: app.id))
        let purged = try await store.consumeEnrollmentToken(
            hash: Secrets.hash(expiring), applicationID: applicationID, userID: "alice")
        let kept = try await store.consumeEnrollmentToken(
            hash: Secrets.hash(lasting), applicationID: applicationID, userID: "bob")
        try await store.close()
        #expect(purged == nil)
        #expect(kept?.userID == "bob")
    }
}
