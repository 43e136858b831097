import Foundation
import Synchronization
import Testing
import UMFA

/// The app's own backend as the SDK page's example (docs/sdk.md) uses it: it asks UMFA for enrollment grants
/// and validates login tokens, both with the application's API key.
struct ShopBackend: Sendable {
    let server: LiveServer
    let app: TestApplication
    let signIns = SignInLog()

    func umfaEnrollmentToken(for userId: String) async throws -> String {
        try await server.enrollmentToken(app, user: userId)
    }

    func completeSignIn(userId: String, umfaToken: String) async throws {
        let reply = try await server.validate(app, user: userId, token: umfaToken)
        guard reply.status == 200 else { throw TestFailure("validate-token refused: \(reply.text)") }
        signIns.append(userId)
    }

    func completeSignIn(userId: String, umfaToken: String, completion: @escaping @Sendable (Bool) -> Void) {
        Task {
            do {
                try await completeSignIn(userId: userId, umfaToken: umfaToken)
                completion(true)
            } catch {
                completion(false)
            }
        }
    }
}

/// The users the backend signed in, in order.
final class SignInLog: Sendable {
    private let users = Mutex<[String]>([])

    func append(_ user: String) { users.withLock { $0.append(user) } }
    var all: [String] { users.withLock { $0 } }
}

/// The app's PIN screen.
struct PINPad: Sendable {
    let pad = SecretPad("2580")

    func chooseNewPIN(for userId: String) async -> String? { await pad.provider(.create(userId: userId)) }
    func askForPIN(for userId: String) async -> String? { await pad.provider(.enter(userId: userId)) }
}

@Suite("docs/sdk.md example")
struct ReadmeExampleTests {
    @Test("the \"Use the SDK\" example runs as written against a live server")
    func useTheSDK() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "grant")
            let device = DeviceStorage()
            defer { device.remove() }
            let backend = ShopBackend(server: server, app: app)
            let pinPad = PINPad()

            // docs/sdk.md "Enroll and authenticate" starts here. Differences: the host URL and application id
            // are the test server's, and the passkeys go to a scratch folder.
            var config = try ZSMConfig(json: [
                "host_url": server.origin,
                "application_id": app.id,
                "storage_location": device.url.path,
            ])
            config.userVerification = .pin { purpose in
                switch purpose {
                case .create(let userId): return await pinPad.chooseNewPIN(for: userId)  // nil: the user cancelled
                case .enter(let userId): return await pinPad.askForPIN(for: userId)
                }
            }
            config.enrollmentTokenProvider = { userId in
                // Your backend calls POST /api/umfa/enrollment-tokens with its API key, after its own login.
                try await backend.umfaEnrollmentToken(for: userId)
            }
            let client = UMFAClient(config)

            // Right after your own login: bind this device to the account, once.
            let status = try await client.checkEnrollment(userId: "alice")
            if !status.enrolled {
                let enrollment = try await client.enroll(userId: "alice")
                print("passkey \(enrollment.credentialId) enrolled")
            }

            // At each sign-in: the same device and person prove themselves, and your backend checks
            // the token with POST /api/umfa/validate-token (API key) before it opens the session.
            do {
                let login = try await client.authenticate(userId: "alice")
                try await backend.completeSignIn(userId: "alice", umfaToken: login.token)
            } catch let error as ZSMError {
                // error.recovery: .retry (try again), .startOver (enroll again), .giveUp (show error.message)
                print("UMFA: \(error.message), trace_id \(error.traceId ?? "none")")
            }

            // The same with completion handlers:
            let accepted = await withCheckedContinuation { done in  // test only: wait for the callback
                client.authenticate(userId: "alice") { data, metadata, error in
                    if let token = data?["token"] as? String {
                        backend.completeSignIn(userId: "alice", umfaToken: token) { accepted in
                            print("signed in: \(accepted)")
                            done.resume(returning: accepted)  // test only
                        }
                    } else if let error {
                        print("UMFA: \(error.message), trace_id \(metadata?["trace_id"] ?? "none")")
                        done.resume(returning: false)  // test only
                    }
                }
            }
            // docs/sdk.md example ends here.

            #expect(accepted)
            #expect(backend.signIns.all == ["alice", "alice"])
            #expect(pinPad.pad.prompts == [.create(userId: "alice"), .enter(userId: "alice"), .enter(userId: "alice")])
            #expect(try await client.checkEnrollment(userId: "alice").enrolled)
            #expect(try await server.credentials(app, user: "alice").count == 1)
        }
    }
}
