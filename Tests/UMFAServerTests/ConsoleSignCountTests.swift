import Foundation
import Testing
import UMFAAuthenticator
import UMFAContract
import UMFAWebAuthnTypes

@testable import UMFAServer

/// The console's sign-ins run on the applications' ceremony engine (``CeremonyEngine``): an
/// operator passkey's sign count is checked and recorded as an application passkey's is, so a
/// cloned authenticator, or one assertion counter value sent twice, signs in once at most.
@Suite("Admin console: sign count")
struct ConsoleSignCountTests {
    @Test("a cloned operator passkey with a spent counter is refused; of two at once exactly one signs in")
    func clonedPasskey() async throws {
        try await TestServer.with(.live) { api in
            let store = InMemoryCredentialStore()
            let device = Device(origin: ConsoleTests.origin, authenticator: SoftwareAuthenticator(store: store))
            _ = try await ConsoleCredentialLifecycleTests.enroll(
                api, device: device, token: TestServer.adminToken, name: "Ops laptop")

            // The clone answers with the counter the original has already used.
            let snapshot = store.allCredentials()
            let original = try await ConsoleCredentialLifecycleTests.signIn(api, device: device)
            #expect(original.status == .ok, "\(original.text)")
            for credential in snapshot { store.save(credential) }
            let cloned = try await ConsoleCredentialLifecycleTests.signIn(api, device: device)
            expectError(cloned, .unauthorized, message: "Sign-in failed")

            // Two assertions with one counter value, verified at once.
            for _ in 0..<3 {
                let before = store.allCredentials()
                var assertions: [AuthenticationResponseJSON] = []
                for _ in 0..<2 {
                    for credential in before { store.save(credential) }
                    assertions.append(try await ConsoleTests.assertion(api, device: device))
                }
                let first = assertions[0]
                let second = assertions[1]
                async let one = api.post(APIOperation.consoleSignIn.path, ["credential": try .encoding(first)])
                async let two = api.post(APIOperation.consoleSignIn.path, ["credential": try .encoding(second)])
                let statuses = try await [one.status, two.status]
                #expect(statuses.filter { $0 == .ok }.count == 1, "\(statuses)")
            }
        }
    }
}
