import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFATestSupport

/// `DELETE /api/umfa/me` with an OAuth access token (docs/contract.md §8, "Deleting an account"):
/// only a token granted `umfa:account`, only from a sign-in at most 5 minutes old (RFC 9470), and
/// then everything the account signed in to ends and its address is free again.
@Suite("Deleting one's own account with an access token")
struct AccountDeletionAccessTests {
    static let me = APIOperation.deleteMyAccount.path
    static let scope = "openid email offline_access umfa:account"

    @Test("a token without umfa:account is 403 insufficient_scope, and the account stays")
    func withoutTheScope() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, scope: Self.scope + " umfa:passkeys")
            let granted = try await PasskeyAccessTokenTests.tokens(
                api, app, client: client, email: "ann@example.com", scope: "openid email offline_access umfa:passkeys")
            let token = try #require(granted["access_token"]?.stringValue)

            let refused = try await PasskeyAccessTokenTests.send(
                api, .delete, Self.me, authorization: "Bearer \(token)")
            expectError(refused, .forbidden)
            #expect(
                refused.headers[.wwwAuthenticate]
                    == #"Bearer realm="umfa", error="insufficient_scope", scope="umfa:account""#)
            #expect(try await api.userinfo(app, token: token).status == .ok, "the account and its token stay")
        }
    }

    @Test("a refreshed token of a sign-in older than 5 minutes is 401 insufficient_user_authentication, max_age")
    func staleSignIn() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, scope: Self.scope)
            let granted = try await PasskeyAccessTokenTests.tokens(
                api, app, client: client, email: "old@example.com", scope: Self.scope)
            let refreshToken = try #require(granted["refresh_token"]?.stringValue)

            // The attack: a stolen refresh token mints a new access token long after the sign-in,
            // and tries to delete the account with it.
            api.clock.advance(by: 301)
            let refreshed = try await api.refresh(app, client: client, token: refreshToken)
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let late = try #require(refreshed["access_token"]?.stringValue)
            let refused = try await PasskeyAccessTokenTests.send(api, .delete, Self.me, authorization: "Bearer \(late)")
            expectError(refused, .unauthorized)
            #expect(
                refused.headers[.wwwAuthenticate]
                    == #"Bearer realm="umfa", error="insufficient_user_authentication", acr_values="urn:umfa:acr:passkey", max_age=300"#
            )
            #expect(try await api.userinfo(app, token: late).status == .ok, "the account and its token stay")
        }
    }

    @Test("a fresh token with umfa:account deletes the account: its tokens end, and the address signs up again")
    func deletes() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, scope: Self.scope)
            let granted = try await PasskeyAccessTokenTests.tokens(
                api, app, client: client, email: "bea@example.com", scope: Self.scope)
            let token = try #require(granted["access_token"]?.stringValue)
            let refreshToken = try #require(granted["refresh_token"]?.stringValue)

            let deleted = try await PasskeyAccessTokenTests.send(
                api, .delete, Self.me, authorization: "Bearer \(token)")
            #expect(deleted.status == .noContent && deleted.text.isEmpty, "\(deleted.status) \(deleted.text)")
            expectOAuthError(
                try await api.refresh(app, client: client, token: refreshToken), .badRequest, "invalid_grant")
            #expect(try await api.userinfo(app, token: token).status == .unauthorized)
            let again = try await PasskeyAccessTokenTests.send(api, .delete, Self.me, authorization: "Bearer \(token)")
            expectError(again, .unauthorized)

            let newcomer = try await PasskeyAccessTokenTests.tokens(
                api, app, client: client, email: "bea@example.com", scope: Self.scope)
            #expect(newcomer["access_token"]?.stringValue != nil, "the address is free for a new account")
        }
    }
}
