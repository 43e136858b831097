import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import UMFAAuthenticator
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@testable import UMFAServer

/// Related Origin Requests (WebAuthn L3 §5.11): the `related_origins` setting and its limits,
/// `/.well-known/webauthn` per host, and the origin check accepting a related origin.
@Suite("Related origins")
struct RelatedOriginsTests {
    static let related = ["https://shop.example.org", "https://www.example.co.uk"]

    static func patch(_ api: API, _ app: TestApplication, _ origins: [String]) async throws -> Reply {
        try await api.send(
            .patch, APIOperation.updateApplication.path(["id": app.id]),
            json: try .encoding(ApplicationSettingsRequest(ApplicationSettings(relatedOrigins: origins))),
            bearer: TestServer.adminToken)
    }

    /// `GET /.well-known/webauthn` with `host` as the `Host` header.
    static func document(_ api: API, host: String) async throws -> Reply {
        let response = try await api.client.execute(
            uri: APIOperation.relatedOrigins.path, method: .get, headers: [try #require(HTTPField.Name("Host")): host],
            body: nil)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    @Test("the label of an origin is the first label of its registrable domain")
    func labels() {
        #expect(RelatedOrigins.label(ofHost: "www.shop.example") == "shop")
        #expect(RelatedOrigins.label(ofHost: "shop.example.co.uk") == "example")
        #expect(RelatedOrigins.label(ofHost: "example.com.au") == "example")
        #expect(RelatedOrigins.label(ofHost: "localhost") == "localhost")
        #expect(RelatedOrigins.label(ofHost: "192.168.1.10") == nil)
        #expect(RelatedOrigins.label(ofHost: "[::1]") == nil)
        #expect(
            RelatedOrigins.labels(["https://a.com", "https://www.a.co.uk", "https://b.de", "https://a.fr"]) == [
                "a", "b",
            ])
    }

    @Test("related_origins must be web origins of at most 5 labels; refusals name the field and change nothing")
    func validation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let bad: [[String]] = [
                ["http://shop.example.org"], ["https://shop.example.org/"], ["https://shop.example.org/login"],
                ["https://shop.example.org?x=1"], ["ios:bundle-id:com.example.shop"], ["https://192.168.1.10"],
                ["https://Shop.example.org"], ["https://shop.example.org", "https://shop.example.org"],
                ["shop.example.org"],
                ["https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://f.com"],
            ]
            for origins in bad {
                let reply = try await Self.patch(api, app, origins)
                #expect(reply.status == .badRequest, "\(origins): \(reply.text)")
                #expect(reply["message"]?.stringValue?.contains("related_origins") == true, "\(reply.text)")
            }
            let six = try await Self.patch(
                api, app,
                ["https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://f.com"])
            #expect(six["message"]?.stringValue?.contains("6 distinct labels") == true, "\(six.text)")

            // Five labels, one of them in three spellings, and http on localhost: accepted.
            let five = [
                "https://a.com", "https://www.a.co.uk", "https://a.de", "https://b.com", "https://c.com",
                "https://d.com", "http://localhost:3000",
            ]
            let accepted = try await Self.patch(api, app, five)
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(accepted["related_origins"] == .array(five.map(JSONValue.string)))

            // Another application of the same RP ID publishes in the same document: together
            // they may not pass 5 labels either.
            let other = try await api.createApplication()
            let refused = try await Self.patch(api, other, ["https://f.com"])
            #expect(refused.status == .badRequest && refused.text.contains("related_origins"), "\(refused.text)")
            #expect(try await Self.patch(api, other, ["https://b.com", "https://www.c.com"]).status == .ok)

            // `[]` removes them; the refused attempts changed nothing.
            #expect(try await Self.patch(api, app, []).json?["related_origins"] == .array([]))
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": other.id]), bearer: TestServer.adminToken)
            #expect(shown["related_origins"] == .array([.string("https://b.com"), .string("https://www.c.com")]))
        }
    }

    @Test("/.well-known/webauthn answers the related origins of the RP ID the Host names, else 404")
    func wellKnownDocument() async throws {
        try await TestServer.with { api in
            #expect(try await Self.document(api, host: TestApplication.rpID).status == .notFound)
            let shop = try await api.createApplication()
            let none = try await Self.document(api, host: TestApplication.rpID)
            #expect(none.status == .notFound && none["trace_id"]?.stringValue != nil, "\(none.text)")

            #expect(try await Self.patch(api, shop, Self.related).status == .ok)
            api.clock.advance(by: 1)  // created later: listed after shop
            let bank = try await api.createApplication()
            #expect(
                try await Self.patch(api, bank, ["https://www.example.co.uk", "https://bank.example.net"]).status == .ok
            )

            for host in ["example.com", "example.com:8443", "EXAMPLE.com."] {
                let reply = try await Self.document(api, host: host)
                #expect(reply.status == .ok, "\(host): \(reply.text)")
                #expect(reply.headers[.contentType] == "application/json")
                // Merged, oldest application first, duplicates removed; nothing else in it.
                #expect(
                    reply.json
                        == .object([
                            "origins": .array(
                                (Self.related + ["https://bank.example.net"]).map(JSONValue.string))
                        ]), "\(reply.text)")
            }
            for host in ["shop.example.org", "app.example.com", "127.0.0.1:8080", ""] {
                #expect(try await Self.document(api, host: host).status == .notFound, "\(host)")
            }
        }
    }

    @Test("a ceremony from a related origin verifies; one from an origin not listed is refused")
    func ceremonies() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let authenticator = SoftwareAuthenticator(store: InMemoryCredentialStore())
            let shop = RelatedOriginDevice(origin: "https://shop.example.org", authenticator: authenticator)
            let stranger = RelatedOriginDevice(origin: "https://shop.example.net", authenticator: authenticator)

            // Not yet related: refused.
            let early = try await shop.register(api, app, user: "alice")
            #expect(early.status != .ok && early["token"] == nil, "\(early.text)")

            #expect(try await Self.patch(api, app, Self.related).status == .ok)
            let registered = try await shop.register(api, app, user: "alice")
            #expect(registered.status == .ok && registered["token"]?.stringValue != nil, "\(registered.text)")
            let signedIn = try await shop.authenticate(api, app, user: "alice")
            #expect(signedIn.status == .ok && signedIn["token"]?.stringValue != nil, "\(signedIn.text)")
            #expect(signedIn["credential_id"] == registered["credential_id"])

            // The same passkey from an origin on no list: refused at both ceremonies.
            let refused = try await stranger.authenticate(api, app, user: "alice")
            #expect(refused.status == .unauthorized && refused["token"] == nil, "\(refused.text)")
            let refusedRegistration = try await stranger.register(api, app, user: "bob")
            #expect(refusedRegistration.status != .ok && refusedRegistration["token"] == nil)

            // Removing the related origins ends their sign-ins.
            #expect(try await Self.patch(api, app, []).status == .ok)
            let removed = try await shop.authenticate(api, app, user: "alice")
            #expect(removed.status == .unauthorized && removed["token"] == nil, "\(removed.text)")
        }
    }
}

/// A browser on a related origin (WebAuthn L3 §5.11): its origin is not within the RP ID, so
/// ``WebAuthnClient``'s §5.1.3 step 8 check would refuse it; this client stands for a browser
/// that has fetched `/.well-known/webauthn` and found its origin there.
struct RelatedOriginDevice {
    let origin: String
    let authenticator: SoftwareAuthenticator

    func clientData(_ type: String, _ challenge: Base64URLBytes) -> [UInt8] {
        let challengeText = Base64URL.encode(challenge.bytes)
        return Array(
            "{\"type\":\"\(type)\",\"challenge\":\"\(challengeText)\",\"origin\":\"\(origin)\",\"crossOrigin\":false}"
                .utf8)
    }

    /// registration/options, the authenticator, registration/verify: the verify answer.
    func register(_ api: API, _ app: TestApplication, user: String) async throws -> Reply {
        let options = try await api.registrationOptions(app, user: user)
        let publicKey = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
        let data = clientData(CollectedClientData.createType, publicKey.challenge)
        let result = try authenticator.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(SHA256.hash(data: data)), rpID: try #require(publicKey.rp.id),
                user: publicKey.user, algorithms: publicKey.pubKeyCredParams.map(\.alg)),
            verification: .confirmedByPlatform(.simulated))
        let credential = RegistrationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(data),
                attestationObject: Base64URLBytes(result.attestationObject.encoded)),
            clientExtensionResults: [:])
        return try await api.call(
            .registrationVerify, RegistrationVerifyRequest(applicationID: app.id, userID: user, credential: credential))
    }

    /// authentication/options, the authenticator, authentication/verify: the verify answer.
    func authenticate(_ api: API, _ app: TestApplication, user: String) async throws -> Reply {
        let options = try await api.authenticationOptions(app, user: user)
        let publicKey = try #require(options["publicKey"]).decoded(RequestOptionsJSON.self)
        let data = clientData(CollectedClientData.getType, publicKey.challenge)
        let result = try authenticator.getAssertion(
            GetAssertionRequest(
                clientDataHash: Array(SHA256.hash(data: data)), rpID: try #require(publicKey.rpId),
                allowCredentialIDs: (publicKey.allowCredentials ?? []).map(\.id.bytes)),
            verification: .confirmedByPlatform(.simulated))
        let credential = AuthenticationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(data),
                authenticatorData: Base64URLBytes(result.authenticatorData.rawBytes),
                signature: Base64URLBytes(result.signature), userHandle: Base64URLBytes(result.userHandle)),
            clientExtensionResults: [:])
        return try await api.verifyAssertion(app, user: user, credential: credential)
    }
}
