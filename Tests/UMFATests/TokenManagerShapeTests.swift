import Crypto
import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport

@testable import UMFA

/// The token manager in Curity's documented shapes (`fetchAccessToken(with:)`,
/// `refreshAccessToken(with:)`, `TokenResponse`, the token-endpoint listener), the completion
/// forms of the manager and the flow driver, and the DPoP key provider seam, against a live
/// server.
@Suite("OAuth token manager: the documented shapes")
struct TokenManagerShapeTests {
    @Test(
        "fetchAccessToken(with:) redeems a checked code with the verifier the manager kept; the listener hears the bodies"
    )
    func fetchAccessTokenWithCode() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let listener = StatusListener()
            fixture.oauth.tokenEndpointResponseListener = listener
            let accounts = try fixture.accounts()
            let driver = accounts.driver
            let email = "tove.\(UUID().uuidString.prefix(8))@example.com"
            // The flow driver's completion forms, step by step, typed as Curity's steps.
            var step = try await awaiting { driver.start(prompt: "create", completion: $0) }.get()
            let create = try #require(step.formAction(kind: "create-account"))
            step = try await awaiting {
                driver.submitForm(create.model, parameters: ["email": .string(email)], completion: $0)
            }.get()
            let operation = try #require((step as? any ClientOperationStep)?.actionModel)
            let credential = try await accounts.perform(operation.operation, label: email)
            let next = try #require(operation.continueFormAction)
            step = try await awaiting {
                driver.submitForm(next.model, parameters: ["credential": credential], completion: $0)
            }.get()
            let response = try #require(step as? OAuthAuthorizationResponseStep)
            let code = try #require(response.oauthAuthorizationResponseProperties.code)

            // The code alone: the manager holds the PKCE verifier and nonce of the request it built,
            // and the driver checked the response's state.
            let manager = driver.tokens
            guard
                case .successfulToken(let tokens) = await awaiting({
                    manager.fetchAccessToken(with: code, completion: $0)
                })
            else { throw TestFailure("the code was not redeemed") }
            #expect(tokens.tokenType == "DPoP" && tokens.idToken != nil)
            #expect(
                try jwtClaims(tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue == manager.dpopThumbprint)
            // Redeemed once: the manager has no request left for a second try.
            guard case .error(let none) = await manager.fetchAccessToken(with: code) else {
                throw TestFailure("a code was redeemed twice")
            }
            #expect(none.code == .invalidConfiguration)

            // Refresh, revoke and a refused refresh, by the completion forms.
            let refreshToken = try #require(tokens.refreshToken)
            let refreshed = try await awaiting { manager.refreshAccessToken(with: refreshToken, completion: $0) }.get()
            #expect(refreshed.refreshToken != refreshToken && refreshed.tokenType == "DPoP")
            let rotated = try #require(refreshed.refreshToken)
            #expect(await awaiting { manager.revoke(rotated, completion: $0) } == nil)
            guard case .errorToken(let refusal) = await manager.refreshAccessToken(with: rotated) else {
                throw TestFailure("a revoked refresh token was accepted")
            }
            #expect(refusal.error == "invalid_grant" && refusal.statusCode == 400 && refusal.errorDescription != nil)

            // The listener heard each answer with its body: the flow token, the code, the
            // refresh (successes, the body's access token the typed one) and the refusal.
            let heard = listener.all
            #expect(heard.map(\.kind) == ["success", "success", "success", "token-error"])
            #expect(heard.map(\.status) == [200, 200, 200, 400])
            #expect(heard[1].body["access_token"] == tokens.accessToken && heard[1].typed == tokens.accessToken)
            #expect(heard[1].body["refresh_token"] == tokens.refreshToken)
            #expect(heard[1].headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(heard[3].body["error"] == "invalid_grant" && heard[3].typed == "invalid_grant")
        }
    }

    @Test("a token endpoint that cannot be reached: .error(networkError), and onError without an HTTP response")
    func unreachable() async throws {
        let listener = StatusListener()
        let manager = try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            fixture.oauth.tokenEndpointResponseListener = listener
            let manager = try OAuthTokenManager(configuration: fixture.oauth)
            _ = try await manager.metadata()
            return manager
        }
        // The server is gone; the manager still knows where its token endpoint was.
        guard case .error(let error) = await manager.refreshAccessToken(with: "a-refresh-token") else {
            throw TestFailure("a server that is gone answered")
        }
        #expect(error.code == .networkError)
        #expect(listener.all.map(\.kind) == ["error"])
        #expect(listener.all.first?.status == nil && listener.all.first?.body.isEmpty == true)
    }

    @Test("a second DPoP key provider (Ed25519, EdDSA) binds the flow's tokens to its key; another key is refused")
    func secondKeyProvider() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let provider = Ed25519DPoPKey()
            fixture.oauth.tokenBoundConfiguration = BoundedTokenConfiguration(keyProvider: provider)
            let email = "ines.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await fixture.accounts().signUp(profile: AccountProfile(email: email))
            #expect(signedUp.tokens.tokenType == "DPoP")
            // RFC 7638 §3.2 by hand: the OKP key's required members, sorted, hashed.
            let members =
                #"{"crv":"Ed25519","kty":"OKP","x":"\#(Base64URL.encode(provider.key.publicKey.rawRepresentation))"}"#
            let thumbprint = Base64URL.encode(Array(SHA256.hash(data: Array(members.utf8))))
            #expect(try jwtClaims(signedUp.tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint)
            // Every request of the flow was proved by the provider; the SDK made no key of its own.
            #expect(provider.signatures >= 4)
            #expect(!FileManager.default.fileExists(atPath: storage.url.appendingPathComponent("dpop-keys").path))

            // The refresh token is bound to the provider's key: the SDK's own P-256 key, or no key, is refused.
            let refreshToken = try #require(signedUp.tokens.refreshToken)
            for other in [BoundedTokenConfiguration() as any TokenBoundConfiguration, UnboundedTokenConfiguration()] {
                var oauth = fixture.oauth
                oauth.tokenBoundConfiguration = other
                guard
                    case .errorToken(let refusal) = try await OAuthTokenManager(configuration: oauth)
                        .refreshAccessToken(with: refreshToken)
                else { throw TestFailure("a refresh token bound to one key was used with another") }
                #expect(refusal.error == "invalid_dpop_proof")
            }
            let refreshed = try await OAuthTokenManager(configuration: fixture.oauth)
                .refreshAccessToken(with: refreshToken).get()
            #expect(try jwtClaims(refreshed.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint)
        }
    }
}

/// A DPoP key provider that is not the SDK's: an Ed25519 key (EdDSA, RFC 8037), counting its
/// signatures.
final class Ed25519DPoPKey: DPoPKeyProvider {
    let key = Curve25519.Signing.PrivateKey()
    private let count = Mutex(0)

    var signatures: Int { count.withLock { $0 } }
    var algorithm: String { "EdDSA" }
    var publicJWK: [String: String] {
        ["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(key.publicKey.rawRepresentation)]
    }

    func sign(_ signingInput: [UInt8]) async throws -> [UInt8] {
        count.withLock { $0 += 1 }
        return Array(try key.signature(for: signingInput))
    }
}
