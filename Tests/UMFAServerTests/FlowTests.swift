import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("Full flow")
struct FlowTests {
    @Test("enroll with a grant, sign in, validate as JWT and as credential, list, unenroll")
    func fullFlow() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            #expect(app.settings["enrollment_policy"]?.stringValue == "grant")
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "alice")
            #expect(grant.hasPrefix("umfa_et_"))

            let registered = try await api.register(
                app, user: "alice", device: device, enrollmentToken: grant, traceID: "trace-registration-1")
            #expect(registered.traceID == "trace-registration-1")
            #expect(registered.userID == "alice")
            #expect(Base64URL.decode(registered.credentialID)?.count == 32)

            let signIn = try await api.authenticate(app, user: "alice", device: device)
            #expect(signIn.userID == "alice")
            #expect(signIn.credentialID == registered.credentialID)
            #expect(UUID(uuidString: signIn.traceID) != nil)

            let echoed = try await api.validate(app, user: "alice", token: .string(signIn.token), traceID: "backend-7")
            #expect(echoed.status == .ok)
            #expect(echoed.json == .object(["user_id": .string("alice"), "trace_id": .string("backend-7")]))
            let fresh = try await api.validate(app, user: "alice", token: .string(signIn.token))
            #expect(fresh.status == .ok)
            expectTraceID(fresh, nil)

            for form in ["object", "JSON string", "token-type spelling"] {
                let assertion = try await api.assertion(app, user: "alice", device: device)
                let token: JSONValue =
                    form == "JSON string"
                    ? .string(try JSONValue.encoding(assertion).text()) : try .encoding(assertion)
                let typeKey = form == "token-type spelling" ? "token-type" : "token_type"
                let valid = try await api.validate(
                    app, user: "alice", token: token, type: "credential", typeKey: typeKey, traceID: "cred-1")
                #expect(valid.status == .ok, "\(form): \(valid.text)")
                #expect(valid.json == .object(["user_id": .string("alice"), "trace_id": .string("cred-1")]))
                let replayed = try await api.validate(
                    app, user: "alice", token: token, type: "credential", typeKey: typeKey, traceID: "cred-2")
                expectError(
                    replayed, .unauthorized,
                    message:
                        "Validate token failed with: MFA credential was invalid: The challenge is unknown, expired or already used",
                    traceID: "cred-2")
            }

            let list = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(list.status == .ok)
            let credentials = list["credentials"]?.arrayValue ?? []
            #expect(credentials.count == 1)
            #expect(credentials.first?["credential_id"]?.stringValue == registered.credentialID)
            #expect(credentials.first?["attestation_format"]?.stringValue == "none")
            #expect(credentials.first?["aaguid"]?.stringValue == "554d4641-0000-4000-8000-736f66747761")
            #expect((credentials.first?["sign_count"]?.intValue ?? 0) >= 4)
            #expect(credentials.first?["last_used_at"]?.stringValue != nil)

            let proof = try await api.assertion(app, user: "alice", device: device)
            let unenrolled = try await api.verifyAssertion(
                app, user: "alice", credential: proof, path: APIOperation.unenroll.path)
            #expect(unenrolled.status == .ok, "\(unenrolled.text)")
            #expect(unenrolled["removed"]?.boolValue == true)
            #expect(unenrolled["credential_id"]?.stringValue == registered.credentialID)
            #expect(unenrolled["user_id"]?.stringValue == "alice")

            let emptied = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(emptied["credentials"]?.arrayValue?.isEmpty == true)

            // The device still holds its key; the server no longer accepts it.
            let options = try await api.authenticationOptions(app, user: "alice")
            var request = try #require(options["publicKey"]).decoded(RequestOptionsJSON.self)
            #expect(request.allowCredentials?.first?.id.base64URL != registered.credentialID)
            #expect(throws: (any Error).self) { try device.get(request, userVerified: true) }
            request.allowCredentials = [
                CredentialDescriptor(id: try #require(Base64URLBytes(base64URL: registered.credentialID)))
            ]
            let stale = try device.get(request, userVerified: true)
            let refused = try await api.verifyAssertion(app, user: "alice", credential: stale)
            expectError(refused, .unauthorized, message: "Authentication failed")
        }
    }

    @Test("the same flow over a real socket")
    func liveSocket() async throws {
        try await TestServer.with(.live) { api in
            let health = try await api.send(.get, "/health")
            #expect(health.status == .ok)
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "bob@example.com")
            let registered = try await api.register(
                app, user: "bob@example.com", device: device, enrollmentToken: grant)
            let signIn = try await api.authenticate(app, user: "bob@example.com", device: device)
            #expect(signIn.credentialID == registered.credentialID)
            let valid = try await api.validate(app, user: "bob@example.com", token: .string(signIn.token))
            #expect(valid.status == .ok)
            let list = try await api.send(
                .get, "/api/umfa/users/bob%40example.com/credentials?application_id=\(app.id)", bearer: app.apiKey)
            #expect(list["credentials"]?.arrayValue?.count == 1)
            let missing = try await api.send(.get, "/no/such/route")
            expectError(missing, .notFound)
        }
    }
}
