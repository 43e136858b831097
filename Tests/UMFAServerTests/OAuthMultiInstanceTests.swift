import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §5 "Everything shared by instances": clients, tokens and revocations on one
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

    @Test("sign-up on A, code redeemed on B; one refresh token sent to A and B at once rotates at most once")
    func codeFlowAcrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let client = try await a.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, cookie) = try await a.signUpThroughFlow(
                app, client: client, flow: flow, email: "pia@example.com", device: Device.make())
            let tokens = try await b.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            #expect(tokens.status == .ok, "\(tokens.text)")
            // The SSO session made on A answers on B.
            let silent = try await b.authorize(
                app, Authorization().query(client: client.id, scope: "openid", extra: ["prompt": "none"]),
                cookie: cookie)
            #expect(try silent.redirect()["code"] != nil)

            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            async let fromA = a.refresh(app, client: client, token: refresh)
            async let fromB = b.refresh(app, client: client, token: refresh)
            let replies = [try await fromA, try await fromB]
            // One use at most rotates: the other finds the token spent and revokes the family
            // (RFC 9700 §4.14.2). When that revocation lands while the winner is still issuing,
            // the winner is refused too, so both may fail; never both succeed.
            #expect(replies.filter { $0.status == .ok }.count <= 1, "\(replies.map(\.text))")
            #expect(replies.filter { $0["error"]?.stringValue == "invalid_grant" }.count >= 1)
            // Whatever the order, the family is revoked: the winner's new token and the old one fail.
            if let winner = replies.first(where: { $0.status == .ok })?["refresh_token"]?.stringValue {
                expectOAuthError(try await a.refresh(app, client: client, token: winner), .badRequest, "invalid_grant")
            }
            expectOAuthError(try await b.refresh(app, client: client, token: refresh), .badRequest, "invalid_grant")
        }
    }

    @Test("one DPoP proof sent to A and B at once is accepted exactly once")
    func dpopReplayAcrossInstances() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let client = try await a.machineClient(app)
            let auth = (client.id, try #require(client.secret))
            let key = DPoPKey(now: { a.clock.now })
            for _ in 0..<5 {
                let proof = key.proof("POST", DPoPServerTests.tokenURL(app))
                let grant = [("grant_type", "client_credentials")]
                async let fromA = a.form(.oauthToken, app, grant, basic: auth, dpop: proof)
                async let fromB = b.form(.oauthToken, app, grant, basic: auth, dpop: proof)
                let replies = [try await fromA, try await fromB]
                #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.text))")
                #expect(replies.filter { $0["error"]?.stringValue == "invalid_dpop_proof" }.count == 1)
            }
        }
    }

    @Test("an initial access token good for 3 registrations, sent 10 times to two instances at once: 3 clients")
    func initialAccessTokenUses() async throws {
        try await InstancePair.with { a, b in
            let app = try await a.createApplication(policy: "grant")
            let token = try await a.initialAccessToken(app, uses: 3, scope: "reports")
            let body: JSONValue = ["grant_types": ["client_credentials"], "scope": "reports"]
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for index in 0..<10 {
                    let api = index.isMultiple(of: 2) ? a : b
                    group.addTask {
                        try await api.registration(.post, app, json: body, authorization: "Bearer " + token)
                    }
                }
                var all: [Reply] = []
                for try await reply in group { all.append(reply) }
                return all
            }
            #expect(replies.filter { $0.status == .created }.count == 3, "\(replies.map(\.text))")
            #expect(replies.filter { $0["error"]?.stringValue == "invalid_token" }.count == 7)
            let listed = try await b.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(listed["clients"]?.arrayValue?.count == 3)
        }
    }
}
