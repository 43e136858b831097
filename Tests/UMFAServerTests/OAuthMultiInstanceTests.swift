import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// DESIGN.md §5 "Everything shared by instances": clients, tokens and revocations on one
/// PostgreSQL database act as one issuer on two instances.
@Suite("OpenID Connect provider on two instances (PostgreSQL)")
struct OAuthMultiInstanceTests {
    @Test("a client registered on A gets tokens on B; a revocation on B ends the token on A")
    func sharedIssuer() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let client = try await a.machineClient(app)
            let auth = (client.id, try #require(client.secret))
            let grant: [(String, String)] = [("grant_type", "client_credentials")]
            let token = try #require(
                try await b.form(.oauthToken, app, grant, basic: auth)["access_token"]?.stringValue)
            #expect(
                try await a.form(.oauthIntrospect, app, [("token", token)], basic: auth)["active"]?.boolValue == true)
            #expect(try await b.form(.oauthRevoke, app, [("token", token)], basic: auth).status == .ok)
            let after = try await a.form(.oauthIntrospect, app, [("token", token)], basic: auth)
            #expect(after.json == .object(["active": .bool(false)]))
            // A secret rotated on A is refused on B at once.
            let rotated = try await a.send(
                .post, APIOperation.rotateOAuthClientSecret.path(["id": app.id, "client_id": client.id]),
                bearer: TestServer.adminToken)
            #expect(rotated.status == .ok)
            expectOAuthError(try await b.form(.oauthToken, app, grant, basic: auth), .unauthorized, "invalid_client")
        }
    }
}
