import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("Enrollment policy")
struct EnrollmentPolicyTests {
    static let invalidGrant = "The enrollment token is invalid, expired or already used"

    @Test("grant: no token 403; wrong, expired and used tokens 401")
    func grantPolicy() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let none = try await api.registrationOptions(app, user: "alice")
            expectError(
                none, .forbidden,
                message: "This application requires an enrollment token from its backend to register a device")
            let wrong = try await api.registrationOptions(app, user: "alice", enrollmentToken: "umfa_et_guessed")
            expectError(wrong, .unauthorized, message: Self.invalidGrant)

            let shortLived = try await api.enrollmentToken(app, user: "alice", ttl: 60)
            api.clock.advance(by: 61)
            let expired = try await api.registrationOptions(app, user: "alice", enrollmentToken: shortLived)
            expectError(expired, .unauthorized, message: Self.invalidGrant)

            // Spent when a registration is verified (asking for options again does not spend it).
            let grant = try await api.enrollmentToken(app, user: "alice")
            _ = try await api.register(app, user: "alice", device: Device.make(), enrollmentToken: grant)
            let reused = try await api.registrationOptions(app, user: "alice", enrollmentToken: grant)
            expectError(reused, .unauthorized, message: Self.invalidGrant)

            let otherApp = try await api.createApplication(policy: "grant")
            let foreign = try await api.enrollmentToken(otherApp, user: "alice")
            let crossed = try await api.registrationOptions(app, user: "alice", enrollmentToken: foreign)
            expectError(crossed, .unauthorized, message: Self.invalidGrant)
        }
    }

    @Test("a token for another user is refused and not burned: its user can still use it")
    func tokenForAnotherUser() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let bobsGrant = try await api.enrollmentToken(app, user: "bob")
            let stolen = try await api.registrationOptions(app, user: "mallory", enrollmentToken: bobsGrant)
            expectError(stolen, .unauthorized, message: Self.invalidGrant)
            let registered = try await api.register(app, user: "bob", device: Device.make(), enrollmentToken: bobsGrant)
            #expect(registered.userID == "bob")
        }
    }

    @Test("a registration challenge expires and is bound to its user")
    func registrationChallenge() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "alice")
            let options = try await api.registrationOptions(app, user: "alice", enrollmentToken: grant)
            let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
            let credential = try device.create(creation, userVerified: true)
            let asBob = try await api.post(
                APIOperation.registrationVerify.path,
                .object(["application_id": .string(app.id), "user_id": "bob", "credential": try .encoding(credential)]))
            expectError(asBob, .unauthorized, message: "Registration failed")

            let again = try await api.registrationOptions(
                app, user: "alice", enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let late = try device.create(
                try #require(again["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            api.clock.advance(by: 301)
            let expired = try await api.post(
                APIOperation.registrationVerify.path,
                .object(["application_id": .string(app.id), "user_id": "alice", "credential": try .encoding(late)]))
            expectError(expired, .unauthorized, message: "Registration failed")
        }
    }

    @Test("open: the first device needs no grant; a second needs an enrollment token or a login token ≤ 5 min old")
    func openPolicy() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open", tokenTTL: 3600)
            #expect(app.settings["enrollment_policy_description"]?.stringValue?.contains("development only") == true)
            let phone = try await api.register(app, user: "alice", device: Device.make())
            #expect(phone.userID == "alice")

            let bare = try await api.registrationOptions(app, user: "alice")
            expectError(
                bare, .forbidden, message: "Adding another device needs an enrollment token or a recent login token")
            let otherUsersToken = try await api.register(app, user: "bob", device: Device.make()).token
            let wrongUser = try await api.registrationOptions(app, user: "alice", token: otherUsersToken)
            expectError(wrongUser, .unauthorized, containing: "the user_id claim does not match the user")

            let laptop = try await api.register(app, user: "alice", device: Device.make(), token: phone.token)
            #expect(laptop.credentialID != phone.credentialID)

            api.clock.advance(by: 301)
            let stale = try await api.registrationOptions(app, user: "alice", token: laptop.token)
            expectError(stale, .forbidden, message: "The login token is older than 5 minutes; sign in again")
            let tablet = try await api.register(
                app, user: "alice", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            #expect(tablet.userID == "alice")

            let list = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(list["credentials"]?.arrayValue?.count == 3)
        }
    }
}
