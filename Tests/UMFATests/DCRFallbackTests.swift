import Foundation
import Synchronization
import Testing
import UMFAAttestationTestSupport
import UMFAContract
import UMFAEncoding
import UMFATestSupport

@testable import UMFA

/// The flow token by a client attestation (docs/contract.md §6), and the DCR template fallback (§5)
/// when the device cannot attest the app or the server refuses its attestation, against a live
/// server that trusts a test App Attest CA.
@Suite("OAuth token manager: client attestation and the DCR fallback")
struct DCRFallbackTests {
    static let appID = "ABCDE12345.com.example.shop"
    static let assertionType = "urn:umfa:client-attestation:apple-app-attest"

    /// An application listing the shop's app, a public client that must attest itself, and
    /// (with `template`) a DCR template client configured as the fallback.
    static func fixture(_ server: LiveServer, _ storage: DeviceStorage, template: Bool) async throws -> FlowFixture {
        let app = try await server.createApplication(policy: "open")
        try await server.patch(app, ["apple_app_ids": .array([.string(appID)])])
        var fixture = try await FlowFixture.make(server, storage, client: ["attestation_required": true], app: app)
        if template {
            let made = try await server.flowClient(
                app,
                [
                    "client_name": "Shop template", "dcr_template": true,
                    "token_endpoint_auth_method": "client_secret_basic",
                    "grant_types": .array(["authorization_code", "refresh_token", "client_credentials"]),
                ])
            fixture.oauth.dcrTemplate = .init(
                clientId: try #require(made["client_id"]?.stringValue),
                authentication: .secret(try #require(made["client_secret"]?.stringValue)))
        }
        return fixture
    }

    static func clientCount(_ server: LiveServer, _ app: TestApplication) async throws -> Int {
        let reply = try await server.send(
            .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: LiveServer.adminToken)
        guard case .array(let clients)? = reply["clients"] else { throw TestFailure("no client list: \(reply.text)") }
        return clients.count
    }

    /// An attestation closure that counts its calls and answers with `attest`.
    final class Attester: Sendable {
        let calls = Mutex(0)
        let attest: @Sendable (String) throws -> String

        init(_ attest: @escaping @Sendable (String) throws -> String) { self.attest = attest }

        var authentication: ClientAuthentication {
            .attestation { challenge in
                self.calls.withLock { $0 += 1 }
                return .init(type: DCRFallbackTests.assertionType, assertion: try self.attest(challenge))
            }
        }
    }

    struct DeviceCannotAttest: Error {}

    @Test("an App Attest attestation of the issuer's challenge gets the flow token; nothing is registered")
    func attestationPath() async throws {
        let ca = try AttestationTestCA()
        try await LiveServer.with(ownPublicURL: true, attestationAnchors: ca.anchors) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await Self.fixture(server, storage, template: true)
            let attester = Attester { try ca.appAttest(appID: Self.appID, challenge: $0) }
            fixture.oauth.clientAuthentication = attester.authentication
            let before = try await Self.clientCount(server, fixture.app)
            let email = "ana.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await fixture.accounts().signUp(profile: AccountProfile(email: email))
            #expect(signedUp.claims["aud"]?.stringValue == fixture.oauth.clientId)
            #expect(attester.calls.withLock { $0 } == 1)
            #expect(try await Self.clientCount(server, fixture.app) == before)
            // The client requires attestation: without one (and no template) the flow token is refused.
            var plain = fixture.oauth
            plain.clientAuthentication = .none
            plain.dcrTemplate = nil
            guard
                case .errorToken(let refusal) = await OAuthTokenManager(configuration: plain, dpopKey: DPoPKey())
                    .flowToken()
            else { throw TestFailure("an attestation-required client got a flow token without one") }
            #expect(refusal.error == "invalid_client")
        }
    }

    @Test(
        "a device that cannot attest, or an attestation the server refuses, registers through the template and goes on",
        arguments: ["closure throws", "server refuses"])
    func fallback(trigger: String) async throws {
        let ca = try AttestationTestCA()
        let untrusted = try AttestationTestCA()
        try await LiveServer.with(ownPublicURL: true, attestationAnchors: ca.anchors) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await Self.fixture(server, storage, template: true)
            let attester = Attester { challenge in
                guard trigger == "server refuses" else { throw DeviceCannotAttest() }
                return try untrusted.appAttest(appID: Self.appID, challenge: challenge)
            }
            fixture.oauth.clientAuthentication = attester.authentication
            let log = LogCapture()
            fixture.oauth.logger = log.logger()
            let before = try await Self.clientCount(server, fixture.app)
            let email = "bo.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await fixture.accounts().signUp(profile: AccountProfile(email: email))
            let registered = try #require(signedUp.claims["aud"]?.stringValue)
            #expect(registered != fixture.oauth.clientId && registered != fixture.oauth.dcrTemplate?.clientId)
            #expect(try await Self.clientCount(server, fixture.app) == before + 1)
            let why =
                trigger == "server refuses"
                ? "the server refused the client (invalid_client)" : "the app could not attest itself"
            #expect(log.text.contains("\(why); registering a client from the DCR template"), "\(log.text)")
            // The kept client signs in later without asking the device to attest again.
            let again = try await fixture.accounts().logIn(email: email)
            #expect(again.claims["aud"]?.stringValue == registered)
            #expect(attester.calls.withLock { $0 } == 1)
            #expect(try await Self.clientCount(server, fixture.app) == before + 1)
        }
    }

    @Test(
        "without a template: a device that cannot attest is a clear error, a refused attestation the server's refusal")
    func noTemplate() async throws {
        let ca = try AttestationTestCA()
        try await LiveServer.with(ownPublicURL: true, attestationAnchors: ca.anchors) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await Self.fixture(server, storage, template: false)
            fixture.oauth.clientAuthentication = Attester { _ in throw DeviceCannotAttest() }.authentication
            let cannot = await #expect(throws: FlowError.self) {
                _ = try await fixture.accounts().signUp(profile: AccountProfile(email: "cy@example.com"))
            }
            #expect(cannot?.underlying?.code == .invalidConfiguration && cannot?.recovery == .giveUp)
            #expect(cannot?.message.contains("cannot attest the app, and no DCR template is configured") == true)

            let untrusted = try AttestationTestCA()
            fixture.oauth.clientAuthentication =
                Attester { try untrusted.appAttest(appID: Self.appID, challenge: $0) }
                .authentication
            let refused = await #expect(throws: FlowError.self) {
                _ = try await fixture.accounts().signUp(profile: AccountProfile(email: "cy@example.com"))
            }
            #expect(refused?.httpStatus == 401 && refused?.message.hasPrefix("invalid_client") == true)
        }
    }
}
