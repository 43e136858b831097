import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("Client emulation")
struct WebAuthnClientTests {
    @Test(
        "the RP ID must be the origin's host or a registrable suffix of it",
        arguments: [
            ("https://example.org", true), ("https://login.example.org", true), ("https://example.com", false),
            ("https://badexample.org", false), ("http://example.org", false),
            ("ios:bundle-id:com.example.app", true), ("android:apk-key-hash:abc", true),
        ])
    func rpIDValidity(origin: String, allowed: Bool) throws {
        let client = Fixture.client(origin: origin)
        if allowed {
            let response = try client.create(Fixture.creationOptions(), userVerified: false)
            let clientData = try CollectedClientData(bytes: response.response.clientDataJSON.bytes)
            #expect(clientData.origin == origin)
        } else {
            #expect(throws: AuthenticatorError(.notAllowed, "")) {
                try client.create(Fixture.creationOptions(), userVerified: false)
            }
        }
    }

    @Test("http is accepted on localhost, as browsers treat it as a secure context")
    func localhost() throws {
        let client = Fixture.client(origin: "http://localhost:8080")
        var options = Fixture.creationOptions()
        options.rp.id = "localhost"
        let response = try client.create(options, userVerified: false)
        #expect(!response.rawId.isEmpty)
    }

    @Test("client data is serialised as browsers do, in the specification's member order")
    func clientDataOrder() throws {
        let response = try Fixture.client().create(Fixture.creationOptions(), userVerified: false)
        let text = String(decoding: response.response.clientDataJSON.bytes, as: UTF8.self)
        let challenge = Base64URL.encode(Fixture.challenge(1))
        #expect(
            text
                == "{\"type\":\"webauthn.create\",\"challenge\":\"\(challenge)\",\"origin\":\"https://example.org\",\"crossOrigin\":false}"
        )
    }

    @Test("inside a cross-origin iframe the client data carries crossOrigin and topOrigin")
    func crossOriginIframe() throws {
        var client = Fixture.client()
        client.topOrigin = "https://shop.example"
        let response = try client.create(Fixture.creationOptions(), userVerified: false)
        let clientData = try CollectedClientData(bytes: response.response.clientDataJSON.bytes)
        #expect(clientData.crossOrigin == true)
        #expect(clientData.topOrigin == "https://shop.example")
    }

    @Test("the JSON response round-trips through Codable unchanged")
    func responseCodable() throws {
        let response = try Fixture.client().create(Fixture.creationOptions(), userVerified: false)
        let data = try JSONEncoder().encode(response)
        #expect(try JSONDecoder().decode(RegistrationResponseJSON.self, from: data) == response)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["id"] as? String == response.rawId.base64URL)
        #expect(object["type"] as? String == "public-key")
    }
}
