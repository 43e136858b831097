import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

@testable import UMFA

/// Bound or unbound tokens (Curity's `BoundedTokenConfiguration` / `UnboundedTokenConfiguration`)
/// against a live server: an unbound manager sends no DPoP proof and gets `Bearer` tokens.
@Suite("OAuth token manager: bound or unbound tokens")
struct TokenBindingTests {
    /// The hosted pages as their script drives them: account creation with this device's
    /// passkey; the authorization response's URL.
    static func createAccount(_ server: LiveServer, at url: URL, email: String, device: PasskeyAccountClient)
        async throws -> URL
    {
        let path = url.path + "?" + (url.query ?? "")
        let page = try await server.send(.get, path)
        func meta(_ name: String) throws -> String {
            let text = page.text
            guard let start = text.range(of: "name=\"\(name)\" content=\""),
                let end = text[start.upperBound...].firstIndex(of: "\"")
            else { throw TestFailure("no \(name) on the page: \(page.status) \(text.prefix(300))") }
            return String(text[start.upperBound..<end])
        }
        #expect(try meta("umfa-view") == "create-account")
        let (issuerPath, interaction) = (try meta("umfa-issuer-path"), try meta("umfa-interaction"))
        let options = try await server.send(
            .post, issuerPath + "/interaction/create-account/options",
            json: ["interaction": .string(interaction), "email": .string(email)])
        let operation = FlowClientOperation(
            name: "webauthn-registration",
            arguments: ["credentialCreationOptions": try #require(options.json)], continueActions: [],
            errorActions: [])
        let credential = try await device.perform(operation, label: email)
        let verified = try await server.send(
            .post, issuerPath + "/interaction/create-account/verify",
            json: ["interaction": .string(interaction), "credential": credential])
        #expect(verified["next"]?.stringValue == "redirect", "\(verified.text)")
        return try #require(verified["redirect_to"]?.stringValue.flatMap(URL.init(string:)))
    }

    @Test("unbound: a browser's authorization request without dpop_jkt, no proofs, Bearer tokens without cnf")
    func unbound() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let bound = try OAuthTokenManager(configuration: fixture.oauth)
            let boundURL = try await bound.authorizationRequestURL()
            #expect(boundURL.query?.contains("dpop_jkt=\(try #require(bound.dpopThumbprint))") == true)

            fixture.oauth.tokenBoundConfiguration = UnboundedTokenConfiguration()
            let manager = try OAuthTokenManager(configuration: fixture.oauth)
            #expect(manager.dpopThumbprint == nil)
            let url = try await manager.authorizationRequestURL(prompt: "create")
            #expect(url.query?.contains("dpop_jkt") == false)
            let email = "uma.\(UUID().uuidString.prefix(8))@example.com"
            let redirect = try await Self.createAccount(server, at: url, email: email, device: try fixture.accounts())
            let query = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems)
            let code = try #require(query.first { $0.name == "code" }?.value)
            #expect(query.first { $0.name == "state" }?.value == manager.pending.newestState)
            #expect(!code.isEmpty)

            // No proof went with the code: the server issued a Bearer token, bound to nothing.
            let tokens = try await manager.fetchAccessToken(redirectURL: redirect).get()
            #expect(tokens.tokenType == "Bearer")
            let claims = try jwtClaims(tokens.accessToken)
            #expect(claims["cnf"] == nil && claims["sub"] != nil)
            // An unbound refresh token refreshes without a proof, into Bearer tokens again.
            let refreshed = try await manager.refreshAccessToken(with: try #require(tokens.refreshToken)).get()
            #expect(refreshed.tokenType == "Bearer")
            #expect(try jwtClaims(refreshed.accessToken)["cnf"] == nil)

            // The API-driven flow binds its code to the flow's key: an unbound driver says so.
            guard case .error(let error) = await FlowDriver(tokens: manager).start() else {
                throw TestFailure("an unbound driver started a flow")
            }
            #expect((error as? HaapiError)?.zsmError.code == .invalidConfiguration)
            #expect((error as? HaapiError)?.recovery == .giveUp)
        }
    }
}
