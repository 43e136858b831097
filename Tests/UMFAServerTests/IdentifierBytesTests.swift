import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/contract.md §4: identifiers are bytes. Swift's `String ==` calls `"jos\u{e9}"` and
/// `"jose\u{301}"` equal; SQLite and PostgreSQL do not, so the server must not either.
@Suite("Identifiers are compared as bytes")
struct IdentifierBytesTests {
    static let victim = "jos\u{e9}"
    static let attacker = "jose\u{301}"

    @Test("the two spellings are equal to Swift and different as bytes (the premise)")
    func premise() {
        #expect(Self.victim == Self.attacker)
        #expect(!Self.victim.isSameBytes(as: Self.attacker))
    }

    @Test("options for one spelling cannot register a key on the other's account")
    func registrationCannotCrossSpellings() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            _ = try await api.register(app, user: Self.victim, device: Device.make())

            // The attacker's own first enrollment is allowed under `open`...
            let options = try await api.registrationOptions(app, user: Self.attacker)
            #expect(options.status == .ok)
            let attackerDevice = Device.make()
            let credential = try attackerDevice.create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            // ...but its challenge cannot be answered in the victim's name.
            let reply = try await api.call(
                .registrationVerify,
                RegistrationVerifyRequest(applicationID: app.id, userID: Self.victim, credential: credential))
            #expect(reply.status == .unauthorized)
            let listed = try await api.send(
                .get,
                APIOperation.listUserCredentials.path(["user_id": Self.victim]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(listed["credentials"]?.arrayValue?.count == 1, "the victim still has only their own key")
        }
    }

    @Test("an assertion over a challenge for one spelling does not sign in the other")
    func assertionCannotCrossSpellings() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let attackerDevice = Device.make()
            _ = try await api.register(app, user: Self.attacker, device: attackerDevice)
            _ = try await api.register(app, user: Self.victim, device: Device.make())

            let assertion = try await api.assertion(app, user: Self.attacker, device: attackerDevice)
            let reply = try await api.verifyAssertion(app, user: Self.victim, credential: assertion)
            #expect(reply.status == .unauthorized)
        }
    }

    @Test("a login token for one spelling does not validate for the other")
    func tokenCannotCrossSpellings() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let victim = try await api.register(app, user: Self.victim, device: Device.make())
            #expect(try await api.validate(app, user: Self.victim, token: .string(victim.token)).status == .ok)
            let crossed = try await api.validate(app, user: Self.attacker, token: .string(victim.token))
            #expect(crossed.status == .unauthorized)
            #expect(crossed["message"]?.stringValue?.contains("user_id claim does not match") == true)
        }
    }

    @Test("user_id is limited to 256 bytes of UTF-8, not 256 characters")
    func userIDLimitInBytes() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let oneGrapheme = "e" + String(repeating: "\u{301}", count: 2_000)
            #expect(oneGrapheme.count == 1)
            let twoByteCharacters = String(repeating: "\u{e9}", count: 129)
            #expect(twoByteCharacters.count == 129 && twoByteCharacters.utf8.count == 258)
            for userID in [oneGrapheme, twoByteCharacters] {
                let options = try await api.authenticationOptions(app, user: userID)
                #expect(options.status == .badRequest)
                #expect(options["message"]?.stringValue == "user_id must be 1 to 256 bytes of UTF-8")
                #expect(try await api.registrationOptions(app, user: userID).status == .badRequest)
            }
            let longest = String(repeating: "\u{e9}", count: 128)
            #expect(try await api.authenticationOptions(app, user: longest).status == .ok)
        }
    }

    @Test("display_name over 256 bytes and device_name over 128 bytes are refused, not cut")
    func nameLimitsInBytes() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let reply = try await api.call(
                .registrationOptions,
                RegistrationOptionsRequest(
                    applicationID: app.id, userID: "alice", displayName: String(repeating: "\u{e9}", count: 129)))
            #expect(reply.status == .badRequest)
            #expect(reply["message"]?.stringValue == "display_name must be at most 256 bytes of UTF-8")

            let options = try await api.registrationOptions(app, user: "alice")
            let credential = try Device.make().create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let verify = try await api.call(
                .registrationVerify,
                RegistrationVerifyRequest(
                    applicationID: app.id, userID: "alice", credential: credential,
                    deviceName: String(repeating: "\u{e9}", count: 65)))
            #expect(verify.status == .badRequest)
            #expect(verify["message"]?.stringValue == "device_name must be at most 128 bytes of UTF-8")
        }
    }

    @Test("U+0000 is refused in any body string (escaped) and in a path user id, alike on both engines")
    func nulRefused() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let path = APIOperation.authenticationOptions.path
            for body in [
                #"{"application_id":"\#(app.id)","user_id":"al\u0000ice"}"#,
                #"{"application_id":"\#(app.id)","user_id":"alice","ignored":"x\u0000"}"#,
            ] {
                let reply = try await api.send(.post, path, raw: body)
                expectError(reply, .badRequest, message: "Strings in the request body must not contain U+0000")
            }
            // An escaped backslash followed by "u0000" is text, not a NUL.
            let text = #"{"application_id":"\#(app.id)","user_id":"alice","ignored":"\\u0000"}"#
            #expect(try await api.send(.post, path, raw: text).status == .ok)
            let listed = try await api.send(
                .get, "/api/umfa/users/al%00ice/credentials?application_id=\(app.id)", bearer: app.apiKey)
            expectError(listed, .badRequest, message: "user_id must not contain U+0000")
        }
    }
}
