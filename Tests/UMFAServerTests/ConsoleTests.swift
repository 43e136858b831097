import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// docs/contract.md §8: the admin console's operators — a passkey for the server's own RP ID, the first
/// enrolled with the admin token — and the session it gives: an `HttpOnly`, `SameSite=Strict`
/// cookie that works on the admin API only with its CSRF token.
@Suite("Admin console sessions")
struct ConsoleTests {
    /// The console's origin in tests: the public URL `http://127.0.0.1:0`, loopback served as localhost.
    static let origin = "http://localhost:0"

    struct Session {
        let cookie: String
        let csrf: String
        let setCookie: String
    }

    static func request(
        _ api: API, _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, cookie: String? = nil,
        csrf: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = "umfa_console=\(cookie)" }
        if let csrf, let name = HTTPField.Name("X-CSRF-Token") { headers[name] = csrf }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
        }
        let response = try await api.client.execute(uri: path, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    static func session(_ reply: Reply) throws -> Session {
        let setCookie = try #require(reply.headers[.setCookie], "\(reply.status) \(reply.text)")
        let value = try #require(
            setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        return Session(
            cookie: value, csrf: try #require(reply["csrf_token"]?.stringValue), setCookie: setCookie)
    }

    static func enroll(_ api: API, device: Device, name: String = "Ops laptop") async throws -> Session {
        let options = try await api.post(
            APIOperation.consoleEnrollOptions.path, ["admin_token": .string(TestServer.adminToken)])
        #expect(options.status == .ok, "\(options.text)")
        let publicKey = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
        let credential = try device.create(publicKey, userVerified: true)
        let reply = try await api.post(
            APIOperation.consoleEnroll.path,
            [
                "admin_token": .string(TestServer.adminToken), "credential": try .encoding(credential),
                "name": .string(name),
            ])
        #expect(reply.status == .ok, "\(reply.text)")
        return try session(reply)
    }

    static func assertion(_ api: API, device: Device) async throws -> AuthenticationResponseJSON {
        let options = try await api.post(APIOperation.consoleSignInOptions.path, [:])
        #expect(options.status == .ok, "\(options.text)")
        return try device.get(try #require(options["publicKey"]).decoded(RequestOptionsJSON.self), userVerified: true)
    }

    @Test("enroll with the admin token, call the admin API with cookie and CSRF token, sign out, sign in again")
    func lifecycle() async throws {
        try await TestServer.with { api in
            let device = Device.make(origin: Self.origin)
            // A wrong admin token gets neither options nor a passkey.
            expectError(
                try await api.post(APIOperation.consoleEnrollOptions.path, ["admin_token": "umfa-wrong-token"]),
                .unauthorized)
            let options = try await api.post(
                APIOperation.consoleEnrollOptions.path, ["admin_token": .string(TestServer.adminToken)])
            let publicKey = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
            #expect(publicKey.rp.id == "localhost")
            #expect(publicKey.authenticatorSelection?.userVerification == .required)
            #expect(publicKey.authenticatorSelection?.residentKey == .required)
            let stolen = try device.create(publicKey, userVerified: true)
            expectError(
                try await api.post(
                    APIOperation.consoleEnroll.path,
                    ["admin_token": "umfa-wrong-token", "credential": try .encoding(stolen)]),
                .unauthorized)

            let session = try await Self.enroll(api, device: device)
            #expect(session.setCookie.contains("HttpOnly") && session.setCookie.contains("SameSite=Strict"))
            #expect(session.setCookie.contains("Path=/") && !session.setCookie.contains("Secure"), "http here")
            #expect(session.cookie.hasPrefix("umfa_cs_"))

            // The cookie alone, or with another token, is not enough: CSRF.
            expectError(
                try await Self.request(api, .get, APIOperation.listApplications.path, cookie: session.cookie),
                .unauthorized)
            expectError(
                try await Self.request(
                    api, .get, APIOperation.listApplications.path, cookie: session.cookie, csrf: "forged"),
                .unauthorized)
            expectError(
                try await Self.request(
                    api, .get, APIOperation.listApplications.path, cookie: "umfa_cs_made-up", csrf: session.csrf),
                .unauthorized)
            let listed = try await Self.request(
                api, .get, APIOperation.listApplications.path, cookie: session.cookie, csrf: session.csrf)
            #expect(listed.status == .ok, "\(listed.text)")
            let created = try await Self.request(
                api, .post, APIOperation.createApplication.path,
                json: ["name": "Console shop", "rp_id": "shop.example", "origins": ["https://shop.example"]],
                cookie: session.cookie, csrf: session.csrf)
            #expect(created.status == .created, "\(created.text)")

            // A reload finds the session and its CSRF token again; the token never appears in a cookie.
            let current = try await Self.request(api, .get, APIOperation.consoleSession.path, cookie: session.cookie)
            #expect(current["csrf_token"]?.stringValue == session.csrf)
            #expect(current["passkey_name"]?.stringValue == "Ops laptop")
            expectError(try await Self.request(api, .get, APIOperation.consoleSession.path), .unauthorized)

            // Sign-out needs the CSRF token too, and ends the session everywhere.
            expectError(
                try await Self.request(api, .delete, APIOperation.consoleSignOut.path, cookie: session.cookie),
                .unauthorized)
            let out = try await Self.request(
                api, .delete, APIOperation.consoleSignOut.path, cookie: session.cookie, csrf: session.csrf)
            #expect(out.status == .ok && out.headers[.setCookie]?.contains("Max-Age=0") == true, "\(out.text)")
            expectError(
                try await Self.request(
                    api, .get, APIOperation.listApplications.path, cookie: session.cookie, csrf: session.csrf),
                .unauthorized)

            // The passkey signs in again; its assertion works once.
            let assertion = try await Self.assertion(api, device: device)
            let signedIn = try await api.post("/admin/session", ["credential": try .encoding(assertion)])
            #expect(signedIn.status == .ok, "\(signedIn.text)")
            let again = try Self.session(signedIn)
            #expect(again.cookie != session.cookie && again.csrf != session.csrf)
            expectError(try await api.post("/admin/session", ["credential": try .encoding(assertion)]), .unauthorized)
            #expect(
                try await Self.request(
                    api, .get, APIOperation.listSigningKeys.path, cookie: again.cookie, csrf: again.csrf
                )
                .status == .ok)

            // Sessions end after eight hours.
            api.clock.advance(by: 8 * 3600 + 1)
            expectError(
                try await Self.request(
                    api, .get, APIOperation.listApplications.path, cookie: again.cookie, csrf: again.csrf),
                .unauthorized)

            let audit = try await api.send(
                .get, APIOperation.listAuditEvents.path + "?limit=1000", bearer: TestServer.adminToken)
            let actions = (audit["events"]?.arrayValue ?? []).compactMap { $0["action"]?.stringValue }
            #expect(
                actions.filter { $0.hasPrefix("admin.") } == [
                    "admin.passkey_enrolled", "admin.signed_in", "admin.signed_out", "admin.signed_in",
                    "admin.sign_in_failed",
                ])
            #expect(actions.contains("application.created"))
            #expect(!audit.text.contains(session.cookie) && !audit.text.contains(session.csrf))
        }
    }

    @Test("a passkey of an application, or of another origin, never signs in to the console")
    func foreignPasskeys() async throws {
        try await TestServer.with { api in
            _ = try await Self.enroll(api, device: Device.make(origin: Self.origin))
            // An application user's passkey: unknown to the console.
            let app = try await api.createApplication(policy: "grant")
            let user = Device.make()
            _ = try await api.register(
                app, user: "alice", device: user, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let userAssertion = try await api.assertion(app, user: "alice", device: user)
            expectError(
                try await api.post("/admin/session", ["credential": try .encoding(userAssertion)]), .unauthorized,
                message: "Sign-in failed")
            // A passkey made on another origin of the same RP ID (a page on another port).
            let phished = Device.make(origin: "http://localhost:1")
            let options = try await api.post(
                APIOperation.consoleEnrollOptions.path, ["admin_token": .string(TestServer.adminToken)])
            let credential = try phished.create(
                try #require(options["publicKey"]).decoded(CreationOptionsJSON.self), userVerified: true)
            expectError(
                try await api.post(
                    APIOperation.consoleEnroll.path,
                    ["admin_token": .string(TestServer.adminToken), "credential": try .encoding(credential)]),
                .unauthorized)
            // Without user verification.
            let careless = Device.make(origin: Self.origin)
            let again = try await api.post(
                APIOperation.consoleEnrollOptions.path, ["admin_token": .string(TestServer.adminToken)])
            // The client skips user verification (as a tampered page would ask it to).
            var lax = try #require(again["publicKey"]).decoded(CreationOptionsJSON.self)
            lax.authenticatorSelection?.userVerification = .discouraged
            let unverified = try careless.create(lax, userVerified: false)
            expectError(
                try await api.post(
                    APIOperation.consoleEnroll.path,
                    ["admin_token": .string(TestServer.adminToken), "credential": try .encoding(unverified)]),
                .unauthorized)
            let names = try await api.send(
                .get, APIOperation.listAuditEvents.path + "?action=admin.passkey_enrolled",
                bearer: TestServer.adminToken)
            #expect(names["events"]?.arrayValue?.count == 1, "only the first enrollment succeeded")
        }
    }

    @Test("the console's user and key routes: find by id or e-mail, list and delete passkeys, issue codes, list keys")
    func userRoutes() async throws {
        try await TestServer.with { api in
            let admin = TestServer.adminToken
            let app = try await api.createApplication(policy: "grant")
            let made = try await api.register(
                app, user: "alice", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            _ = try await api.register(
                app, user: "bob", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "bob"))
            let profile = try await api.send(
                .patch, APIOperation.updateUserProfile.path(["user_id": "alice"]),
                json: ["application_id": .string(app.id), "email": "Alice@Example.com"], bearer: app.apiKey)
            #expect(profile.status == .ok, "\(profile.text)")
            let base = APIOperation.listApplicationUsers.path(["id": app.id])

            let newest = try await api.send(.get, base, bearer: admin)
            #expect(
                Set(newest["users"]?.arrayValue?.compactMap { $0["user_id"]?.stringValue } ?? []) == ["alice", "bob"])
            let byEmail = try await api.send(.get, base + "?query=alice%40example.com", bearer: admin)
            let found = try #require(byEmail["users"]?.arrayValue?.first)
            #expect(byEmail["users"]?.arrayValue?.count == 1 && found["user_id"]?.stringValue == "alice")
            #expect(found["email"]?.stringValue == "Alice@Example.com" && found["credential_count"] == .number(1))
            #expect(try await api.send(.get, base + "?query=bob", bearer: admin)["users"]?.arrayValue?.count == 1)
            #expect(
                try await api.send(.get, base + "?query=nobody", bearer: admin)["users"]?.arrayValue?.isEmpty == true)

            let credentials = try await api.send(.get, base + "/alice/credentials", bearer: admin)
            #expect(credentials["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue == made.credentialID)
            expectError(try await api.send(.get, base + "/nobody/credentials", bearer: admin), .notFound)
            // An enrollment QR code for the user's next phone, as the backend's route makes it.
            let enroll = try await api.send(.post, base + "/alice/enroll", bearer: admin)
            #expect(enroll.status == .ok && enroll["status"]?.stringValue == "registered", "\(enroll.text)")
            #expect(enroll["enrollment"]?["qrCode"]?["dataUri"]?.stringValue?.hasPrefix("data:image/png") == true)
            expectError(try await api.send(.post, base + "/alice/enroll", bearer: app.apiKey), .unauthorized)
            let codes = try await api.send(.post, base + "/alice/recovery-codes", bearer: admin)
            #expect(codes.status == .created && codes["recovery_codes"]?.arrayValue?.count == 10)
            let deleted = try await api.send(.delete, base + "/alice/credentials/\(made.credentialID)", bearer: admin)
            #expect(deleted.status == .ok, "\(deleted.text)")
            expectError(
                try await api.send(.delete, base + "/alice/credentials/\(made.credentialID)", bearer: admin), .notFound)
            // The deleted passkey's login token no longer validates.
            let validated = try await api.validate(app, user: "alice", token: .string(made.token))
            #expect(validated.status == .unauthorized, "\(validated.text)")

            let keys = try await api.send(.get, APIOperation.listSigningKeys.path, bearer: admin)
            let list = try #require(keys["keys"]?.arrayValue)
            #expect(!list.isEmpty && list.allSatisfy { $0["kid"] != nil && $0["private_key"] == nil })
            #expect(!keys.text.contains("sealed") && !keys.text.contains("\"d\""))
        }
    }
}
