import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// The demo page manages passkeys through the self-service routes (docs/contract.md §8) with the
/// user's login token; the development-only `/api/demo/…` routes are gone.
@Suite("Demo page's server side")
struct DemoRoutesTests {
    @Test("the old development-only routes answer 404; the page's calls are the self-service routes")
    func demoRoutesAreGone() async throws {
        try await DemoServer.with { api, development in
            let device = Device.make(origin: DemoServer.origin)
            let alice = try await api.register(development, user: "alice", device: device)
            for (method, path) in [
                (HTTPRequest.Method.post, "/api/demo/validate-token"), (.get, "/api/demo/users/alice/credentials"),
                (.delete, "/api/demo/users/alice/credentials/\(alice.credentialID)"),
            ] {
                #expect(try await api.send(method, path, bearer: alice.token).status == .notFound, "\(path)")
            }
            let listed = try await api.send(.get, APIOperation.listMyCredentials.path, bearer: alice.token)
            #expect(listed.status == .ok, "\(listed.text)")
            #expect(listed["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue == alice.credentialID)
            // The user handle the page gives the WebAuthn Signal API: the one the passkey holds.
            let handle = try #require(listed["user_handle"]?.stringValue.flatMap(Base64URL.decode))
            let assertion = try await api.assertion(development, user: nil, device: device)
            #expect(assertion.response.userHandle?.bytes == handle)
            let script = try await api.send(.get, "/demo/demo.js")
            #expect(script.text.contains(APIOperation.listMyCredentials.path) && !script.text.contains("/api/demo/"))
            #expect(
                script.text.contains("signalAllAcceptedCredentials") && script.text.contains("signalUnknownCredential"))
        }
    }

    @Test("the development application is recognised after a restart; --no-default-app stops naming it")
    func persistenceAndSwitch() async throws {
        let server = DemoServer()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let (id, token) = try await server.run { api, development in
            let development = try #require(development)
            let token = try await api.register(
                development, user: "alice", device: Device.make(origin: DemoServer.origin)
            ).token
            return (development.id, token)
        }
        try await server.run { api, development in
            #expect(development == nil, "a restart creates no second development application")
            #expect(try await api.send(.get, APIOperation.listMyCredentials.path, bearer: token).status == .ok)
            let page = try await api.send(.get, "/")
            #expect(page.text.contains("content=\"\(id)\""))
        }
        try await server.run(developmentApplication: false, demoRoutes: false) { api, _ in
            let page = try await api.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.text.contains("name=\"umfa-development-application\" content=\"\""))
        }
    }
}
