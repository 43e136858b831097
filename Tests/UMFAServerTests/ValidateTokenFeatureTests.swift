import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage

@testable import UMFAServer

/// ``ValidateTokenService`` built from its ports alone (the API-key check, the ceremonies, the
/// login tokens, the refusal trail) over a SQLite file: what an application backend asks of every
/// request (docs/contract.md §2, §4). The tokens and assertions come from a real registration. No server.
@Suite("Validate-token from its ports: login tokens, deleted passkeys, API keys")
struct ValidateTokenFeatureTests {
    static func validateToken(_ ports: FeaturePorts) -> ValidateTokenService {
        ValidateTokenService(
            apiKeys: ports.apiKeys, ceremonies: ports.ceremonies, loginTokens: ports.loginTokens,
            refusals: ports.refusals)
    }

    static func validate(
        _ token: JSONValue, user: String = "alice", type: String? = nil, key: String, _ ports: FeaturePorts
    ) async throws -> ValidateTokenResponse {
        try await validateToken(ports).validate(
            ValidateTokenRequest(
                applicationID: ports.application.id.uuidString, userID: user, token: token, tokenType: type),
            caller: ports.caller(bearer: key))
    }

    static let invalidJWT = ValidateTokenService.failurePrefix + "MFA login JWT was invalid: "

    @Test("a login token validates for its user until it expires, never for another user")
    func validLoginToken() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let key = try await ports.addAPIKey()
            let registered = try await DeviceCeremoniesFeatureTests.register("alice", device: Device.make(), ports)
            let answer = try await Self.validate(.string(registered.token), key: key, ports)
            #expect(answer.userID == "alice" && answer.traceID == ports.caller.traceID)
            try await ports.addUser("bob")
            let bob = await #expect(throws: ServiceError.self) {
                _ = try await Self.validate(.string(registered.token), user: "bob", key: key, ports)
            }
            #expect(bob?.code == .unauthenticated && bob?.message.hasPrefix(Self.invalidJWT) == true)
            ports.clock.advance(by: TimeInterval(ports.application.tokenTTLSeconds + 1))
            let late = await #expect(throws: ServiceError.self) {
                _ = try await Self.validate(.string(registered.token), key: key, ports)
            }
            #expect(late?.code == .unauthenticated && late?.message.hasPrefix(Self.invalidJWT) == true)
        }
    }

    @Test("a login token of a deleted passkey is refused at once, though the passkey's owner was cached")
    func deletedPasskey() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let key = try await ports.addAPIKey()
            let registered = try await DeviceCeremoniesFeatureTests.register("alice", device: Device.make(), ports)
            // The first validation remembers the owner of the passkey (ValidationCache).
            _ = try await Self.validate(.string(registered.token), key: key, ports)
            let id = try #require(Base64URL.decode(registered.credentialID))
            #expect(
                try await ports.store.deleteCredential(
                    applicationID: ports.application.id, userID: "alice", credentialID: id))
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.validate(.string(registered.token), key: key, ports)
            }
            #expect(refused?.code == .unauthenticated)
            #expect(refused?.message.hasPrefix(Self.invalidJWT) == true, "\(refused?.message ?? "")")
        }
    }

    @Test("made-up API keys are refused and counted until the address is blocked; a real key is never blocked")
    func wrongAPIKeys() async throws {
        let limits = AbuseLimits(credentialFailures: 2, window: .seconds(60), baseBlock: .seconds(30))
        try await FeaturePorts.with(limits: limits, signing: true) { ports in
            let key = try await ports.addAPIKey()
            let registered = try await DeviceCeremoniesFeatureTests.register("alice", device: Device.make(), ports)
            let token = JSONValue.string(registered.token)
            // Another application's real key is refused, but it is no guess: never counted.
            let foreign = try await ports.addAPIKey(
                for: try await ports.addApplication(rpID: "shop.test", origins: ["https://shop.test"]))
            for _ in 0..<3 {
                let refused = await #expect(throws: ServiceError.self) {
                    _ = try await Self.validate(token, key: foreign, ports)
                }
                #expect(refused?.code == .unauthenticated)
                #expect(refused?.message == "The API key is not valid for this application")
            }
            for _ in 0..<2 {
                let refused = await #expect(throws: ServiceError.self) {
                    _ = try await Self.validate(token, key: "umfa_ak_made-up", ports)
                }
                #expect(refused?.code == .unauthenticated)
            }
            let blocked = await #expect(throws: ServiceError.self) {
                _ = try await Self.validate(token, key: "umfa_ak_made-up", ports)
            }
            #expect(blocked?.code == .rateLimited(retryAfterSeconds: 30))
            // The application's own key, from the same blocked address, still works.
            #expect(try await Self.validate(token, key: key, ports).userID == "alice")
        }
    }

    @Test("credential mode: a fresh assertion validates once; refusals never block the backend's address")
    func credentialMode() async throws {
        let limits = AbuseLimits(userFailures: 1, addressFailures: 1, window: .seconds(60), baseBlock: .seconds(30))
        try await FeaturePorts.with(limits: limits, signing: true) { ports in
            let key = try await ports.addAPIKey()
            let device = Device.make()
            _ = try await DeviceCeremoniesFeatureTests.register("alice", device: device, ports)
            let assertion = try JSONValue.encoding(
                try await DeviceCeremoniesFeatureTests.assertion("alice", device: device, ports))
            #expect(try await Self.validate(assertion, type: "credential", key: key, ports).userID == "alice")
            for _ in 0..<2 {
                let replay = await #expect(throws: ServiceError.self) {
                    _ = try await Self.validate(assertion, type: "credential", key: key, ports)
                }
                #expect(replay?.code == .unauthenticated)
                #expect(
                    replay?.message
                        == ValidateTokenService.failurePrefix
                        + "MFA credential was invalid: The challenge is unknown, expired or already used")
            }
            // Past the limits of a device, yet the backend relaying its users is not blocked.
            let fresh = try JSONValue.encoding(
                try await DeviceCeremoniesFeatureTests.assertion("alice", device: device, ports))
            #expect(try await Self.validate(fresh, type: "credential", key: key, ports).userID == "alice")
        }
    }
}
