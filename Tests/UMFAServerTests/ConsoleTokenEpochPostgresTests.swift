import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFAServer
import UMFATestSupport

/// Console passkeys follow the admin token on PostgreSQL (docs/contract.md §8): instances that
/// start together with a new admin token remove the earlier token's console passkeys once, and an
/// instance still running with the earlier token (a rolling restart) cannot hand a passkey or
/// session to the new ones.
@Suite("Multi-instance on PostgreSQL: console passkeys end with the admin token")
struct ConsoleTokenEpochPostgresTests {
    @Test("two instances start with a new admin token beside one still running the old")
    func rollingAdminTokenChange() async throws {
        let (url, schema) = try await SharedDatabase.makeSchema()
        let clock = TestClock()
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let directories = (0..<3).map { _ in
            FileManager.default.temporaryDirectory.appendingPathComponent("umfa-instance-\(UUID().uuidString)")
        }
        defer { for directory in directories { try? FileManager.default.removeItem(at: directory) } }
        @Sendable func configuration(_ index: Int, token: String) -> ServerConfiguration {
            var configuration = ServerConfiguration(
                port: 0, dataDirectory: directories[index], database: .postgres(url: url), adminToken: token,
                masterKey: masterKey, createDefaultApplication: false, now: { clock.now })
            configuration.bodyReadTimeout = ServerTransport.patientTimeout
            return configuration
        }
        let logger = {
            var logger = Logger(label: "umfa-test")
            logger.logLevel = .critical
            return logger
        }()
        let oldToken = TestServer.adminToken
        let newToken = ConsoleCredentialLifecycleTests.otherToken
        let operator1 = Device.make(origin: ConsoleTests.origin)
        let operator2 = Device.make(origin: ConsoleTests.origin)

        do {
            let (old, _) = try await buildApplication(configuration: configuration(0, token: oldToken), logger: logger)
            try await old.exercise(.router) { oldClient in
                let a = API(client: oldClient, clock: clock, directory: directories[0])
                let session = try await ConsoleCredentialLifecycleTests.enroll(
                    a, device: operator1, token: oldToken, name: "Ops laptop")

                // Two instances start at once with the new token.
                async let first = buildApplication(configuration: configuration(1, token: newToken), logger: logger)
                async let second = buildApplication(configuration: configuration(2, token: newToken), logger: logger)
                let (b, c) = (try await first.0, try await second.0)
                try await b.exercise(.router) { bClient in
                    try await c.exercise(.router) { cClient in
                        let b = API(client: bClient, clock: clock, directory: directories[1])
                        let c = API(client: cClient, clock: clock, directory: directories[2])
                        let revoked = try await ConsoleCredentialLifecycleTests.events(
                            b, "admin.passkeys_revoked", token: newToken)
                        #expect(revoked.count == 1, "the removal happened once")
                        // The passkey is gone for every instance, the old one included.
                        for api in [a, b, c] {
                            #expect(try await ConsoleCredentialLifecycleTests.adminCall(api, session) == .unauthorized)
                        }
                        expectError(
                            try await ConsoleCredentialLifecycleTests.signIn(c, device: operator1), .unauthorized,
                            reason: "unknown_credential")

                        // The old instance still takes the old token and enrolls with it; the
                        // new instances refuse what it made.
                        let late = try await ConsoleCredentialLifecycleTests.enroll(
                            a, device: operator2, token: oldToken, name: "Late laptop")
                        #expect(try await ConsoleCredentialLifecycleTests.adminCall(a, late) == .ok)
                        #expect(try await ConsoleCredentialLifecycleTests.adminCall(b, late) == .unauthorized)
                        expectError(
                            try await ConsoleCredentialLifecycleTests.signIn(c, device: operator2), .unauthorized)
                        let fresh = try await ConsoleCredentialLifecycleTests.enroll(
                            b, device: Device.make(origin: ConsoleTests.origin), token: newToken, name: "New laptop")
                        #expect(try await ConsoleCredentialLifecycleTests.adminCall(c, fresh) == .ok)
                    }
                }
            }
            // The next start with the new token removes the old instance's late passkey.
            let (next, _) = try await buildApplication(configuration: configuration(1, token: newToken), logger: logger)
            try await next.exercise(.router) { client in
                let api = API(client: client, clock: clock, directory: directories[1])
                let listed = try await api.send(.get, APIOperation.listConsoleCredentials.path, bearer: newToken)
                #expect(
                    listed["credentials"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["New laptop"],
                    "\(listed.text)")
                let revoked = try await ConsoleCredentialLifecycleTests.events(
                    api, "admin.passkeys_revoked", token: newToken)
                #expect(revoked.count == 2)
            }
        } catch {
            await SharedDatabase.dropSchema(schema)
            throw error
        }
        await SharedDatabase.dropSchema(schema)
    }
}
