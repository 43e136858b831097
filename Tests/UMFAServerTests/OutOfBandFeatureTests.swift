import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthnTypes

@testable import UMFAServer

/// ``OutOfBandService`` built from its ports alone (the store, the API-key check, registration and
/// sign-in, the login tokens, webhooks, sealed secrets, the abuse guard) over a SQLite file: an
/// approval started by the backend and answered by the user's passkey on a phone, through the app
/// link's single-use dispatch token; the backend reads the outcome with its status token only
/// (docs/contract.md §7). The clock is moved by hand. No server.
@Suite("Out-of-band approvals from their ports: lifecycle, status token, single-use dispatch token")
struct OutOfBandFeatureTests {
    static func outOfBand(_ ports: FeaturePorts) -> OutOfBandService {
        OutOfBandService(
            store: ports.store, apiKeys: ports.apiKeys, ceremonies: ports.ceremonies, registration: ports.registration,
            authentication: ports.authentication, loginTokens: ports.loginTokens, webhooks: ports.webhooks,
            approvalDispatchers: [], sealed: ports.sealed, abuse: ports.abuse, audit: ports.audit,
            logger: ports.logger, publicURL: FeaturePorts.publicURL, now: ports.now)
    }

    /// An approval for alice, whose passkey is on `phone`, started with the application's API key.
    static func approval(
        _ ports: FeaturePorts, phone: Device, message: String = "Pay 5.00 EUR to Shop", ttl: Int? = nil
    ) async throws -> ApprovalResponse {
        _ = try await DeviceCeremoniesFeatureTests.register("alice", device: phone, ports)
        return try await outOfBand(ports).approve(
            ApprovalRequest(
                applicationID: ports.application.id.uuidString, userID: "alice", message: message, ttlSeconds: ttl),
            caller: ports.caller(bearer: try await ports.addAPIKey()))
    }

    /// The dispatch token inside the app link (docs/contract.md §7: base64url of a JSON payload).
    static func dispatchToken(_ approval: ApprovalResponse) throws -> String {
        let link = try #require(URLComponents(string: approval.appLinkUri))
        #expect(link.path == "/open")
        let value = try #require(link.queryItems?.first { $0.name == "dispatchTokenResponse" }?.value)
        let payload = try JSONDecoder().decode(JSONValue.self, from: Data(try #require(Base64URL.decode(value))))
        return try #require(payload["token"]?.stringValue)
    }

    static func redeem(_ approval: ApprovalResponse, _ ports: FeaturePorts) async throws -> DispatchRedeemResponse {
        try await outOfBand(ports).redeem(
            DispatchRedeemRequest(token: try dispatchToken(approval)), caller: ports.caller)
    }

    static func status(_ token: String, _ ports: FeaturePorts) async throws -> StatusResponse {
        try await outOfBand(ports).status(StatusRequest(statusToken: token), caller: ports.caller)
    }

    static func complete(
        _ transaction: String, _ assertion: AuthenticationResponseJSON, _ ports: FeaturePorts
    ) async throws -> DispatchCompleteResponse {
        try await outOfBand(ports).complete(
            DispatchCompleteRequest(transactionID: transaction, credential: try .encoding(assertion)),
            caller: ports.caller)
    }

    @Test("pending until the phone answers with alice's passkey; then succeeded, with a login token for alice")
    func approved() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let phone = Device.make()
            let approval = try await Self.approval(ports, phone: phone)
            let pending = try await Self.status(approval.statusToken, ports)
            #expect(pending.status == "pending" && pending.token == nil)
            #expect(pending.transactionId == approval.transactionId)

            let redeemed = try await Self.redeem(approval, ports)
            #expect(redeemed.transactionID == approval.transactionId && redeemed.operation == "authentication")
            #expect(redeemed.message == "Pay 5.00 EUR to Shop")
            var options = try redeemed.publicKey.decoded(RequestOptionsJSON.self)
            options.challenge = Base64URLBytes(
                OutOfBandTests.decisionChallenge(options.challenge.bytes, "approve", nil))
            let assertion = try phone.get(options, userVerified: true)
            let done = try await Self.complete(redeemed.transactionID, assertion, ports)
            #expect(done.status == "succeeded" && done.userID == "alice")

            let status = try await Self.status(approval.statusToken, ports)
            #expect(status.status == "succeeded" && status.userId == "alice")
            let token = try #require(status.token)
            #expect(
                try await ports.loginTokens.validate(token, application: ports.application, userID: "alice")?.userID
                    == "alice")
            #expect(try await ports.events(.approvalApproved).map(\.userID) == ["alice"])
            // Ended once: the same answer again changes nothing.
            let again = await #expect(throws: ServiceError.self) {
                _ = try await Self.complete(redeemed.transactionID, assertion, ports)
            }
            #expect(again?.code == .conflict)
        }
    }

    @Test("an assertion for another challenge (not the transaction's) completes nothing; the approval stays pending")
    func otherChallengeRefused() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let phone = Device.make()
            let approval = try await Self.approval(ports, phone: phone)
            let redeemed = try await Self.redeem(approval, ports)
            let elsewhere = try await DeviceCeremoniesFeatureTests.assertion("alice", device: phone, ports)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.complete(redeemed.transactionID, elsewhere, ports)
            }
            #expect(refused?.code == .unauthenticated)
            #expect(try await Self.status(approval.statusToken, ports).status == "pending")
            #expect(try await ports.events(.approvalApproved).isEmpty)
        }
    }

    @Test("the dispatch token redeems once; a second redeem is refused and counted")
    func dispatchTokenOnce() async throws {
        let limits = AbuseLimits(credentialFailures: 2, window: .seconds(60), baseBlock: .seconds(30))
        try await FeaturePorts.with(limits: limits, signing: true) { ports in
            let approval = try await Self.approval(ports, phone: Device.make())
            _ = try await Self.redeem(approval, ports)
            for _ in 0..<2 {
                let refused = await #expect(throws: ServiceError.self) { _ = try await Self.redeem(approval, ports) }
                #expect(refused?.code == .unauthenticated)
                #expect(refused?.message == "The dispatch token is unknown, used or expired")
            }
            let blocked = await #expect(throws: ServiceError.self) { _ = try await Self.redeem(approval, ports) }
            #expect(blocked?.code == .rateLimited(retryAfterSeconds: 30))
        }
    }

    @Test("only the status token reads the status: a made-up one, the dispatch token or the transaction id do not")
    func statusTokenRequired() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let approval = try await Self.approval(ports, phone: Device.make())
            for guess in ["umfa_st_made-up", try Self.dispatchToken(approval), approval.transactionId] {
                let refused = await #expect(throws: ServiceError.self) { _ = try await Self.status(guess, ports) }
                #expect(refused?.code == .unauthenticated && refused?.message == "Unknown status token")
            }
            #expect(try await Self.status(approval.statusToken, ports).status == "pending")
        }
    }

    @Test("expiry by the clock: the link no longer redeems and the status says expired; a cancelled one failed")
    func expiredAndCancelled() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let phone = Device.make()
            let late = try await Self.approval(ports, phone: phone, ttl: 60)
            ports.clock.advance(by: 59)
            #expect(try await Self.status(late.statusToken, ports).status == "pending")
            ports.clock.advance(by: 1)
            #expect(try await Self.status(late.statusToken, ports).status == "expired")
            let refused = await #expect(throws: ServiceError.self) { _ = try await Self.redeem(late, ports) }
            #expect(refused?.code == .unauthenticated)

            // The requester gives up on a redeemed approval: it fails, and the phone's answer comes too late.
            let feature = Self.outOfBand(ports)
            let given = try await feature.approve(
                ApprovalRequest(applicationID: ports.application.id.uuidString, userID: "alice"),
                caller: ports.caller(bearer: try await ports.addAPIKey()))
            let redeemed = try await Self.redeem(given, ports)
            try await feature.cancel(transactionID: given.transactionId, caller: ports.caller)
            #expect(try await Self.status(given.statusToken, ports).status == "failed")
            #expect(try await ports.events(.approvalFailed).count == 1)
            let assertion = try phone.get(try redeemed.publicKey.decoded(RequestOptionsJSON.self), userVerified: true)
            let tooLate = await #expect(throws: ServiceError.self) {
                _ = try await Self.complete(redeemed.transactionID, assertion, ports)
            }
            #expect(tooLate?.code == .conflict)
            #expect(try await Self.status(given.statusToken, ports).token == nil)
        }
    }
}
