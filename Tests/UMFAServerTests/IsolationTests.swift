import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFAServer

@Suite("Isolation")
struct IsolationTests {
    static let missingKey = "Missing API key: send Authorization: Bearer <API key>"
    static let foreignKey = "The API key is not valid for this application"
    static let adminRefusal = "Missing or invalid admin token"

    @Test("every API-key route refuses another application's key, a made-up key and no key, and leaks nothing")
    func apiKeyRoutes() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let alice = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let requests: [(HTTPRequest.Method, String, JSONValue?)] = [
                (
                    .post, APIOperation.createEnrollmentToken.path,
                    .object(["application_id": .string(app.id), "user_id": "alice"])
                ),
                (
                    .post, APIOperation.validateToken.path,
                    .object(["application_id": .string(app.id), "user_id": "alice", "token": .string(alice.token)])
                ),
                (.get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)", nil),
                (
                    .delete,
                    APIOperation.deleteUserCredential.path(["user_id": "alice", "credential_id": alice.credentialID])
                        + "?application_id=\(app.id)", nil
                ),
            ]
            for (method, path, body) in requests {
                for (key, message) in [
                    (other.apiKey as String?, Self.foreignKey), ("umfa_ak_made-up", Self.foreignKey),
                    (nil, Self.missingKey),
                ] {
                    let reply = try await api.send(method, path, json: body, bearer: key)
                    expectError(reply, .unauthorized, message: message)
                    #expect(!reply.text.contains(alice.credentialID))
                    #expect(!reply.text.contains("umfa_et_"))
                }
            }
            // The other application's own view of alice: she does not exist there.
            let elsewhere = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(other.id)",
                bearer: other.apiKey)
            expectError(elsewhere, .notFound, message: "Unknown user")
            let deleteElsewhere = try await api.send(
                .delete,
                APIOperation.deleteUserCredential.path(["user_id": "alice", "credential_id": alice.credentialID])
                    + "?application_id=\(other.id)",
                bearer: other.apiKey)
            expectError(deleteElsewhere, .notFound, message: "Unknown credential")
            let foreignToken = try await api.validate(other, user: "alice", token: .string(alice.token))
            #expect(foreignToken.status == .unauthorized)

            // Nothing changed: alice's credential is there and still signs in.
            let list = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(list["credentials"]?.arrayValue?.count == 1)
            _ = try await api.authenticate(app, user: "alice", device: device)

            // Ceremonies of one application cannot use another's challenges.
            let assertion = try await api.assertion(app, user: "alice", device: device)
            let crossed = try await api.verifyAssertion(other, user: "alice", credential: assertion)
            expectError(crossed, .unauthorized, message: "Authentication failed")
        }
    }

    @Test("admin routes refuse no token, a wrong token and an API key, before reading the body")
    func adminRoutes() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (
                    .post, APIOperation.createApplication.path,
                    "{\"name\": \"x\", \"rp_id\": \"example.com\", \"origins\": []}"
                ),
                (.post, APIOperation.createApplication.path, "{garbage"),
                (.get, APIOperation.listApplications.path, nil),
                (.get, APIOperation.getApplication.path(["id": app.id]), nil),
                (.patch, APIOperation.updateApplication.path(["id": app.id]), "{\"enrollment_policy\": \"open\"}"),
                (.patch, APIOperation.updateApplication.path(["id": app.id]), "{\"token_ttl_seconds\": \"bad\"}"),
                (.post, APIOperation.createAPIKey.path(["id": app.id]), nil),
                (.get, APIOperation.getApplication.path(["id": "not-a-uuid"]), nil),
            ]
            for (method, path, body) in routes {
                for token in [nil, "wrong-admin-token-0123456789", app.apiKey] {
                    let reply = try await api.send(method, path, raw: body, bearer: token)
                    expectError(reply, .unauthorized, message: Self.adminRefusal)
                    #expect(!reply.text.contains("api_key"))
                }
            }
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(shown.status == .ok)
            #expect(shown["enrollment_policy"]?.stringValue == "grant")
            #expect(shown["api_key"] == nil)
            let listed = try await api.send(.get, APIOperation.listApplications.path, bearer: TestServer.adminToken)
            #expect(listed["applications"]?.arrayValue?.count == 1)
        }
    }

    @Test("admin: new API keys work alongside old ones; settings are validated; unknown ids are 404")
    func adminManagement() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let admin = TestServer.adminToken
            let added = try await api.send(.post, APIOperation.createAPIKey.path(["id": app.id]), bearer: admin)
            #expect(added.status == .created)
            let newKey = try #require(added["api_key"]?.stringValue)
            for key in [app.apiKey, newKey] {
                let reply = try await api.post(
                    APIOperation.createEnrollmentToken.path,
                    .object(["application_id": .string(app.id), "user_id": "u"]),
                    bearer: key)
                #expect(reply.status == .created)
            }
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                raw: "{\"token_ttl_seconds\": 600, \"trace_id\": \"adm-1\"}",
                bearer: admin)
            #expect(patched.status == .ok)
            #expect(patched["token_ttl_seconds"]?.intValue == 600)
            expectTraceID(patched, "adm-1")
            let invalid = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]), raw: "{\"origins\": [\"ftp://x\"]}",
                bearer: admin)
            expectError(invalid, .badRequest, containing: "origins must be")
            let badPolicy = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]), raw: "{\"enrollment_policy\": \"anyone\"}",
                bearer: admin)
            expectError(badPolicy, .badRequest, message: "enrollment_policy must be open or grant")
            let unchanged = try await api.send(.get, APIOperation.getApplication.path(["id": app.id]), bearer: admin)
            #expect(unchanged["origins"] == .array([.string(TestApplication.origin)]))
            #expect(unchanged["enrollment_policy"]?.stringValue == "grant")
            let unknown = try await api.send(
                .get, APIOperation.getApplication.path(["id": UUID().uuidString]), bearer: admin)
            expectError(unknown, .notFound, message: "Unknown application")
            let notUUID = try await api.send(.get, APIOperation.getApplication.path(["id": "nope"]), bearer: admin)
            expectError(notUUID, .badRequest, message: "The application id must be a UUID")
        }
    }

    /// Routes that take no API key or admin token: the ceremonies prove themselves, the rest is public.
    static let openRoutes: Set<String> = Set([
        "POST /api/umfa/registration/options", "POST /api/umfa/registration/verify",
        "POST /api/umfa/authentication/options", "POST /api/umfa/authentication/verify", "POST /api/umfa/unenroll",
        "GET /.well-known/jwks.json", "GET /.well-known/apple-app-site-association",
        "GET /.well-known/assetlinks.json", "GET /.well-known/webauthn", "GET /health", "GET /health/ready",
        "GET /metrics",
        "GET /openapi.yaml", "GET /",
        // The issuers' public documents.
        "GET /oidc/{application_id}/.well-known/openid-configuration",
        "GET /.well-known/oauth-authorization-server/oidc/{application_id}", "GET /oidc/{application_id}/jwks",
        // The browser's part of the authorization code flow: the person proves who they are with
        // a passkey on these routes (OIDCHostedPagesTests), and their static files.
        "GET /oidc/{application_id}/authorize", "GET /oidc/{application_id}/logout",
        "POST /oidc/{application_id}/logout",
        "POST /oidc/{application_id}/interaction/sign-in/options",
        "POST /oidc/{application_id}/interaction/sign-in/verify",
        "POST /oidc/{application_id}/interaction/create-account/options",
        "POST /oidc/{application_id}/interaction/create-account/verify",
        "POST /oidc/{application_id}/interaction/consent", "POST /oidc/{application_id}/interaction/verify-email",
        "GET /hosted/hosted.css", "GET /hosted/hosted.js",
        "GET /hosted/webauthn-json.js",
        // Authorised by an OAuth access token, refused in RFC 6750 shape (OIDCAuthorizationCodeTests).
        "GET /oidc/{application_id}/userinfo", "POST /oidc/{application_id}/userinfo",
        // Authorised by an initial or registration access token, refused in RFC 6750 shape
        // (DynamicRegistrationTests); a challenge anyone may ask for (ClientAttestationServerTests).
        "POST /oidc/{application_id}/register", "GET /oidc/{application_id}/register/{client_id}",
        "PUT /oidc/{application_id}/register/{client_id}", "DELETE /oidc/{application_id}/register/{client_id}",
        "POST /oidc/{application_id}/attestation-challenge",
        // A recovery code proves who the caller is, failures counted as for sign-ins (SelfServiceTests).
        "POST /api/umfa/recovery",
        // Recovery by email: anyone may ask (the answer tells nothing); a mailed single-use link
        // proves the caller on its page and its ceremony (Tests/Interop/test_mail.py).
        "POST /oidc/{application_id}/recovery", "GET /oidc/{application_id}/recovery/{token}",
        "POST /oidc/{application_id}/recovery/options", "POST /oidc/{application_id}/recovery/verify",
        "GET /hosted/hosted-recovery.js",
        // The account page and its script: the page signs in through the device-facing routes and
        // changes nothing without the login token they answer (tests/Browser/test_account_page.py).
        "GET /oidc/{application_id}/account", "GET /hosted/hosted-account.js", "GET /hosted/hosted-page.js",
        // The device page, its script and its lookup (wrong codes counted, DeviceGrantTests); its
        // decision needs a login token and is checked below.
        "GET /oidc/{application_id}/device", "POST /oidc/{application_id}/device/code", "GET /hosted/hosted-device.js",
        // The admin console's page and files, and its ceremonies: the admin token in the body or an
        // operator passkey proves the caller, wrong tokens counted (ConsoleTests).
        "GET /admin", "GET /admin/console.css", "GET /admin/console.js", "GET /admin/webauthn-json.js",
        "POST /admin/session/enroll-options", "POST /admin/session/enroll", "POST /admin/session/options",
        "POST /admin/session",
        // Out-of-band (docs/contract.md §7): a status token, a single-use dispatch token or the ceremony
        // of a redeemed transaction proves the caller (OutOfBandTests); the page for phones
        // without the app.
        "POST /api/umfa/status", "POST /api/umfa/dispatch/redeem", "POST /api/umfa/dispatch/complete", "GET /open",
        // The API-driven flow (docs/contract.md §6): a DPoP-bound flow token and its proof authorise each
        // step, refused in RFC 6750 / RFC 9449 shape (APIFlowTests).
    ]).union(APIOperation.allCases.filter { $0.access == .flowToken }.map { "\($0.method) \($0.path)" })

    /// Routes where OAuth clients authenticate themselves (RFC 6749 §2.3) and refuse in RFC 6749
    /// shape; `OAuthTokenEndpointTests.refusals` covers them.
    static let oauthClientRoutes: Set<String> = Set(
        APIOperation.allCases.filter { $0.access == .oauthClient }.map { "\($0.method) \($0.path)" })

    @Test(
        "EVERY API-key and admin operation of APIOperation refuses no key, another app's key and a wrong key: 401, no data"
    )
    func everyProtectedRoute() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let alice = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let admin = TestServer.adminToken
            let keys = try await api.send(.get, APIOperation.listAPIKeys.path(["id": app.id]), bearer: admin)
            let keyID = try #require(keys["api_keys"]?.arrayValue?.first?["key_id"]?.stringValue)
            let jwksBefore = try await api.send(.get, APIOperation.jwks.path)
            let body: JSONValue = .object([
                "application_id": .string(app.id), "user_id": "alice", "token": .string(alice.token),
                "name": "Taken over", "rp_id": "evil.example", "origins": .array(["https://evil.example"]),
                "enrollment_policy": "open",
            ])
            // The demo page's static files (GET /demo/…) are public too.
            let protected = OpenAPITests.table.filter {
                !Self.openRoutes.contains($0) && !Self.oauthClientRoutes.contains($0) && !$0.hasPrefix("GET /demo/")
            }
            #expect(protected.count >= 12, "\(protected)")
            for route in protected {
                // Each route starts with a fresh failure count for the address: this test makes more
                // wrong guesses than the abuse limit allows in one window.
                api.clock.advance(by: 86_400)
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = HTTPRequest.Method(rawValue: parts[0]) ?? .get
                var path = parts[1].replacingOccurrences(of: "{user_id}", with: "alice")
                    .replacingOccurrences(of: "{credential_id}", with: alice.credentialID)
                    .replacingOccurrences(of: "{id}", with: app.id).replacingOccurrences(of: "{key_id}", with: keyID)
                    .replacingOccurrences(of: "{application_id}", with: app.id)
                let isAdmin = path.hasPrefix("/api/admin/")
                let isAPIKey = APIOperation.allCases.first { "\($0.method) \($0.path)" == route }?.access == .apiKey
                if !isAdmin { path += "?application_id=\(app.id)" }
                // Admin and API-key routes answer exactly these refusals; any other protected route
                // (the demo's login-token routes) must refuse with 401 or 403 and show nothing.
                let attempts: [(String?, String?)] =
                    isAdmin
                    ? [
                        (nil, Self.adminRefusal), ("wrong-admin-token-0123456789", Self.adminRefusal),
                        (app.apiKey, Self.adminRefusal),
                    ]
                    : isAPIKey
                        ? [
                            (nil, Self.missingKey), (other.apiKey, Self.foreignKey),
                            ("umfa_ak_made-up", Self.foreignKey),
                            (admin, Self.foreignKey),
                        ]
                        : [(nil, nil), (other.apiKey, nil), (app.apiKey, nil), (admin, nil), ("eyJ.made.up", nil)]
                for (key, message) in attempts {
                    let reply = try await api.send(
                        method, path, json: method == .get || method == .delete ? nil : body, bearer: key)
                    if let message {
                        expectError(reply, .unauthorized, message: message)
                    } else {
                        #expect([401, 403].contains(reply.status.code), "\(route): \(reply.status) \(reply.text)")
                        #expect(Set(reply.json?.objectValue?.keys ?? [:].keys) == ["status", "trace_id", "message"])
                    }
                    for secret in [alice.credentialID, keyID, "umfa_ak_", "umfa_et_", "Taken over"] {
                        #expect(!reply.text.contains(secret), "\(route) leaked \(secret)")
                    }
                }
            }
            // Nothing changed: the application, its key, alice's credential and the signing keys.
            let shown = try await api.send(.get, APIOperation.getApplication.path(["id": app.id]), bearer: admin)
            #expect(shown["name"]?.stringValue == "Test shop")
            #expect(shown["enrollment_policy"]?.stringValue == "grant")
            let listed = try await api.send(.get, APIOperation.listApplications.path, bearer: admin)
            #expect(listed["applications"]?.arrayValue?.count == 2)
            let keysAfter = try await api.send(.get, APIOperation.listAPIKeys.path(["id": app.id]), bearer: admin)
            #expect(keysAfter["api_keys"]?.arrayValue?.count == 1)
            let jwksAfter = try await api.send(.get, APIOperation.jwks.path)
            #expect(jwksAfter.json == jwksBefore.json)
            let credentials = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(credentials["credentials"]?.arrayValue?.count == 1)
            _ = try await api.authenticate(app, user: "alice", device: device)
        }
    }
}
