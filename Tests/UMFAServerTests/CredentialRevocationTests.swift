import Foundation
import Hummingbird
import Logging
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFAStorage
import UMFAWebAuthn

/// What a passkey signed in on the hosted pages — the SSO session, refresh
/// tokens, access tokens — ends when the passkey is deleted, by every route that deletes one,
/// as login tokens already do (docs/contract.md §4).
@Suite("Deleting a passkey ends what it signed in")
struct CredentialRevocationTests {
    static let scope = "openid profile email offline_access"

    /// One browser signed in with one passkey: its SSO cookie and the tokens of its first code.
    struct Session {
        let cookie: String
        let access: String
        let refresh: String
    }

    /// Every route that deletes a passkey.
    enum Deletion: String, CaseIterable, CustomTestStringConvertible {
        case selfService = "self_service"
        case unenroll
        case apiKey = "api_key"
        case admin

        var testDescription: String { rawValue }

        func run(_ api: API, _ app: TestApplication, user: String, credential: String, device: Device) async throws {
            let reply: Reply
            switch self {
            case .selfService:
                let token = try await api.authenticate(app, user: user, device: device).token
                reply = try await api.send(
                    .delete, APIOperation.deleteMyCredential.path(["credential_id": credential]) + "?confirm_last=true",
                    bearer: token)
            case .unenroll:
                let proof = try await api.assertion(app, user: user, device: device)
                reply = try await api.verifyAssertion(
                    app, user: user, credential: proof, path: APIOperation.unenroll.path)
            case .apiKey:
                reply = try await api.send(
                    .delete,
                    APIOperation.deleteUserCredential.path(["user_id": user, "credential_id": credential])
                        + "?application_id=\(app.id)", bearer: app.apiKey)
            case .admin:
                reply = try await api.send(
                    .delete,
                    APIOperation.deleteApplicationUserCredential.path([
                        "id": app.id, "user_id": user, "credential_id": credential,
                    ]), bearer: TestServer.adminToken)
            }
            #expect(reply.status == .ok, "\(rawValue): \(reply.text)")
        }
    }

    /// `user` with a passkey on `device`, registered through the device routes.
    static func enroll(_ api: API, _ app: TestApplication, user: String, device: Device) async throws -> String {
        try await api.register(
            app, user: user, device: device, enrollmentToken: try await api.enrollmentToken(app, user: user)
        ).credentialID
    }

    /// Signs in on the hosted page with the passkey on `device`; redeems the code.
    static func signIn(
        _ api: API, _ app: TestApplication, _ client: TestOAuthClient, user: String, device: Device
    ) async throws -> Session {
        let flow = Authorization()
        let (interaction, view) = try API.page(
            try await api.authorize(app, flow.query(client: client.id, scope: scope)))
        #expect(view == "sign-in")
        let reply = try await api.signIn(app, interaction: interaction, login: user, device: device)
        let setCookie = try #require(reply.headers[.setCookie], "\(reply.text)")
        let code = try #require(try reply.redirectTo()["code"])
        let tokens = try await api.redeem(app, client: client, code: code, verifier: flow.verifier)
        #expect(tokens.status == .ok, "\(tokens.text)")
        return Session(
            cookie: String(setCookie.split(separator: ";")[0]),
            access: try #require(tokens["access_token"]?.stringValue),
            refresh: try #require(tokens["refresh_token"]?.stringValue))
    }

    /// `GET /authorize` with the session cookie, `prompt=none` or none: the redirect, or the page.
    static func reuse(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, cookie: String, silent: Bool)
        async throws -> Reply
    {
        try await api.authorize(
            app, Authorization().query(client: client.id, scope: scope, extra: ["prompt": silent ? "none" : nil]),
            cookie: cookie)
    }

    static func introspect(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ token: String)
        async throws -> Bool?
    {
        let basic = (client.id, try #require(client.secret))
        return try await api.form(.oauthIntrospect, app, [("token", token)], basic: basic)["active"]?.boolValue
    }

    /// The session answers: userinfo, introspection, reuse with and without `prompt=none`.
    static func expectAlive(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ session: Session)
        async throws
    {
        #expect(try await api.userinfo(app, token: session.access).status == .ok)
        #expect(try await introspect(api, app, client, session.access) == true)
        #expect(try await introspect(api, app, client, session.refresh) == true)
        let silent = try await reuse(api, app, client, cookie: session.cookie, silent: true)
        #expect(silent.status == .seeOther, "\(silent.text)")
        #expect(try silent.redirect()["code"] != nil, "the session answers prompt=none with a code")
        let again = try await reuse(api, app, client, cookie: session.cookie, silent: false)
        #expect(again.status == .seeOther, "\(again.text)")
        #expect(try again.redirect()["code"] != nil, "the session answers without a page")
    }

    /// Nothing of the session answers any more.
    static func expectEnded(_ api: API, _ app: TestApplication, _ client: TestOAuthClient, _ session: Session)
        async throws
    {
        expectOAuthError(
            try await api.refresh(app, client: client, token: session.refresh), .badRequest, "invalid_grant")
        let info = try await api.userinfo(app, token: session.access)
        #expect(info.status == .unauthorized)
        #expect(info.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
        #expect(try await introspect(api, app, client, session.access) == false)
        #expect(try await introspect(api, app, client, session.refresh) == false)
        let silent = try await reuse(api, app, client, cookie: session.cookie, silent: true)
        #expect(silent.status == .seeOther)
        let error = try silent.redirect()["error"]
        #expect(error == "login_required", "no code for a deleted passkey's session")
        let again = try await reuse(api, app, client, cookie: session.cookie, silent: false)
        #expect(again.status == .ok, "the sign-in page, not a code: \(again.status)")
        #expect(try API.page(again).view == "sign-in")
    }

    /// The `sessions.revoked` events of the application.
    static func revocations(_ api: API, _ app: TestApplication) async throws -> [JSONValue] {
        try await AuditLogServerTests.events(api, "?application_id=\(app.id)&action=sessions.revoked")
    }

    @Test("deleting the only passkey ends its session, refresh tokens and access tokens", arguments: Deletion.allCases)
    func deletionEndsSignIns(deletion: Deletion) async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let device = Device.make()
            let credential = try await Self.enroll(api, app, user: "alice", device: device)
            let session = try await Self.signIn(api, app, client, user: "alice", device: device)
            try await Self.expectAlive(api, app, client, session)

            try await deletion.run(api, app, user: "alice", credential: credential, device: device)
            try await Self.expectEnded(api, app, client, session)
            let events = try await Self.revocations(api, app)
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event["credential_id"]?.stringValue == credential && event["user_id"]?.stringValue == "alice")
            #expect(event["details"]?["via"]?.stringValue == deletion.rawValue)
            #expect(event["details"]?["reason"]?.stringValue == "credential_deleted")
            #expect(event["details"]?["sessions"] == .number(1))
            #expect(event["details"]?["refresh_families"] == .number(1))
        }
    }

    @Test("only the deleted passkey's sign-ins end; another passkey's session and tokens keep working")
    func otherPasskeysKeepTheirs() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let (laptop, phone) = (Device.make(), Device.make())
            let lost = try await Self.enroll(api, app, user: "alice", device: laptop)
            _ = try await Self.enroll(api, app, user: "alice", device: phone)
            let ending = try await Self.signIn(api, app, client, user: "alice", device: laptop)
            let staying = try await Self.signIn(api, app, client, user: "alice", device: phone)
            try await Deletion.apiKey.run(api, app, user: "alice", credential: lost, device: laptop)

            try await Self.expectEnded(api, app, client, ending)
            try await Self.expectAlive(api, app, client, staying)
            let rotated = try await api.refresh(app, client: client, token: staying.refresh)
            #expect(rotated.status == .ok, "\(rotated.text)")
            let event = try #require(try await Self.revocations(api, app).first)
            #expect(event["details"]?["sessions"] == .number(1))
            #expect(event["details"]?["refresh_families"] == .number(1))
        }
    }

    @Test("every use checks the passkey: a deletion the revocation never saw still ends the sign-in, and its code")
    func checksAtUse() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let device = Device.make()
            let credential = try await Self.enroll(api, app, user: "alice", device: device)
            let session = try await Self.signIn(api, app, client, user: "alice", device: device)
            let flow = Authorization()
            let pending = try await api.authorize(
                app, flow.query(client: client.id, scope: Self.scope, extra: ["prompt": "none"]),
                cookie: session.cookie)
            let code = try #require(try pending.redirect()["code"])

            // Straight in the database, as a deletion that crashed before revoking would leave it.
            let store = try await SQLiteStore.open(
                path: api.directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
            let removed = try await store.deleteCredential(
                applicationID: try #require(UUID(uuidString: app.id)), userID: "alice",
                credentialID: try #require(Base64URL.decode(credential)))
            try await store.close()
            #expect(removed)

            expectOAuthError(
                try await api.redeem(app, client: client, code: code, verifier: flow.verifier), .badRequest,
                "invalid_grant")
            try await Self.expectEnded(api, app, client, session)
            #expect(try await Self.revocations(api, app).isEmpty, "the checks alone ended it")
        }
    }

    @Test("an access token names the passkey that signed in (credential_id), as a login token does")
    func accessTokenNamesThePasskey() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let device = Device.make()
            let credential = try await Self.enroll(api, app, user: "alice", device: device)
            let session = try await Self.signIn(api, app, client, user: "alice", device: device)
            #expect(try CompactJWT(session.access).claims["credential_id"]?.stringValue == credential)
        }
    }
}
