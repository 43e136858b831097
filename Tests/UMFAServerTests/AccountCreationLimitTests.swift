import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Account creation (docs/security-reviews.md, "Account creation that stored a user per options call"):
/// account-creation options on the hosted pages and
/// in the API-driven flow count against the options limit like every options route, and store
/// no user: the user and its profile are stored only with the passkey that verified.
@Suite("Account creation: options are limited and store no user")
struct AccountCreationLimitTests {
    static let scope = "openid email profile"

    static func users(_ api: API, _ app: TestApplication) async throws -> [JSONValue] {
        let reply = try await api.send(
            .get, APIOperation.listApplicationUsers.path(["id": app.id]), bearer: TestServer.adminToken)
        #expect(reply.status == .ok, "\(reply.text)")
        return try #require(reply["users"]?.arrayValue, "\(reply.text)")
    }

    /// A hosted page's interaction for a new authorization request.
    static func interaction(_ api: API, _ app: TestApplication, _ client: TestOAuthClient) async throws -> String {
        let page = try await api.authorize(
            app, Authorization().query(client: client.id, scope: scope, extra: ["prompt": "create"]))
        return try API.page(page).interaction
    }

    static func createOptions(_ api: API, _ app: TestApplication, interaction: String, email: String) async throws
        -> Reply
    {
        try await api.interaction(
            .interactionCreateAccountOptions, app,
            InteractionCreateAccountRequest(
                interaction: interaction, email: email, givenName: "Eve", familyName: nil, phoneNumber: nil,
                deviceName: nil))
    }

    @Test(
        "hosted page: the sixth create-account/options within the limit of 5 is 429 like sign-in/options; no user is left"
    )
    func hostedPageLimit() async throws {
        try await AbuseServer.with(limits: AbuseLimits(optionsRequests: 5)) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let handle = try await Self.interaction(api, app, client)
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<8 {
                let reply = try await Self.createOptions(
                    api, app, interaction: handle, email: "eve\(index)@example.com")
                statuses.append(reply.status)
            }
            #expect(Array(statuses.prefix(5)) == Array(repeating: .ok, count: 5), "\(statuses)")
            #expect(statuses.dropFirst(5).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")

            // The same limiter and the same answer as the other options routes.
            let refused = try await Self.createOptions(api, app, interaction: handle, email: "eve9@example.com")
            let signIn = try await api.interaction(
                .interactionSignInOptions, app, InteractionSignInOptionsRequest(interaction: handle, login: nil))
            let device = try await api.send(
                .post, APIOperation.authenticationOptions.path, json: ["application_id": .string(app.id)])
            for reply in [refused, signIn, device] {
                #expect(reply.status == .tooManyRequests, "\(reply.text)")
                #expect(reply.headers[.retryAfter] != nil)
                #expect(reply["status"]?.intValue == 429 && reply["trace_id"]?.stringValue?.isEmpty == false)
            }
            #expect(refused["message"] == signIn["message"] && refused["message"] == device["message"])
            #expect(try await Self.users(api, app).isEmpty)
        }
    }

    @Test("API-driven flow: the sixth create-account within the limit of 5 is too-many-attempts; no user is left")
    func flowLimit() async throws {
        try await AbuseServer.with(limits: AbuseLimits(optionsRequests: 5)) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await APIFlowServerTests.flowClient(api, app)
            let key = DPoPKey(now: { api.clock.now })
            let token = try await APIFlowServerTests.flowToken(api, app, client, key: key)
            let start = try APIFlowServerTests.step(
                try await APIFlowServerTests.call(
                    api, .get, APIFlowServerTests.authorize(app, client), token: token, key: key))
            let create = try #require(start.action("create-account")?.form?.href)
            let signIn = try #require(start.action("passkey-sign-in")?.form?.href)
            for index in 0..<5 {
                let step = try APIFlowServerTests.step(
                    try await APIFlowServerTests.call(
                        api, .post, create, token: token, key: key, body: #"{"email":"eve\#(index)@example.com"}"#))
                #expect(step.type == .registration)
            }
            for _ in 0..<3 {
                let refused = try await APIFlowServerTests.call(
                    api, .post, create, token: token, key: key, body: #"{"email":"eve9@example.com"}"#)
                _ = try APIFlowServerTests.problem(refused, .tooManyRequests, .tooManyAttempts)
                #expect(refused.headers[.retryAfter] != nil)
            }
            // The flow's sign-in is refused by the same count.
            let limited = try await APIFlowServerTests.call(api, .post, signIn, token: token, key: key, body: "{}")
            _ = try APIFlowServerTests.problem(limited, .tooManyRequests, .tooManyAttempts)
            #expect(try await Self.users(api, app).isEmpty)
        }
    }

    @Test("options store no user; the verified passkey stores the user with its profile and credential")
    func userOnlyWithPasskey() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let handle = try await Self.interaction(api, app, client)
            let device = Device.make()
            let options = try await Self.createOptions(api, app, interaction: handle, email: "Ada@example.com")
            #expect(options.status == .ok, "\(options.text)")
            #expect(try await Self.users(api, app).isEmpty)
            // Asked again (the page reloaded): still nothing stored; only the latest options count.
            let again = try await Self.createOptions(api, app, interaction: handle, email: "Ada@example.com")
            #expect(again.status == .ok)
            #expect(try await Self.users(api, app).isEmpty)
            let publicKey = try #require(again["publicKey"]).decoded(CreationOptionsJSON.self)
            let stale = try device.create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let refused = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: handle, credential: stale))
            #expect(refused.status == .unauthorized, "\(refused.text)")
            #expect(try await Self.users(api, app).isEmpty)

            let credential = try device.create(publicKey, userVerified: true)
            let verified = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: handle, credential: credential))
            #expect(verified.status == .ok, "\(verified.text)")
            let users = try await Self.users(api, app)
            #expect(users.count == 1)
            #expect(users.first?["email"]?.stringValue == "Ada@example.com")
            #expect(users.first?["display_name"]?.stringValue == "Eve")
            #expect(users.first?["credential_count"]?.intValue == 1)
            // The passkey signs in as that user: the stored user handle is the one the options carried.
            let userID = try #require(users.first?["user_id"]?.stringValue)
            let next = try await Self.interaction(api, app, client)
            let signedIn = try await api.signIn(app, interaction: next, login: nil, device: device)
            #expect(signedIn.status == .ok, "\(signedIn.text)")
            let code = try #require(try signedIn.redirectTo()["code"])
            #expect(!code.isEmpty && !userID.isEmpty)
        }
    }

    @Test("two sign-ups with one email: both get options, the second verified passkey is 409 and stores nothing")
    func emailUniqueAtVerify() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let first = try await Self.interaction(api, app, client)
            let second = try await Self.interaction(api, app, client)
            let firstOptions = try await Self.createOptions(api, app, interaction: first, email: "bo@example.com")
            let secondOptions = try await Self.createOptions(api, app, interaction: second, email: "BO@example.com")
            #expect(firstOptions.status == .ok && secondOptions.status == .ok)
            let (firstDevice, secondDevice) = (Device.make(), Device.make())
            let firstCredential = try firstDevice.create(
                try #require(firstOptions["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let secondCredential = try secondDevice.create(
                try #require(secondOptions["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            let won = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: first, credential: firstCredential))
            #expect(won.status == .ok, "\(won.text)")
            let lost = try await api.interaction(
                .interactionCreateAccountVerify, app,
                InteractionCreateAccountVerifyRequest(interaction: second, credential: secondCredential))
            expectError(lost, .conflict, message: "An account with this email address exists already; sign in instead")
            let users = try await Self.users(api, app)
            #expect(users.count == 1 && users.first?["email"]?.stringValue == "bo@example.com", "\(users)")
            // The options check says so too, now that the address is taken.
            let third = try await Self.interaction(api, app, client)
            let taken = try await Self.createOptions(api, app, interaction: third, email: "Bo@Example.com")
            expectError(taken, .conflict, message: "An account with this email address exists already; sign in instead")
        }
    }
}
