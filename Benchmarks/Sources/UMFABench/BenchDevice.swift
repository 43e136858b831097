import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// One user's device: the software authenticator with an in-memory store, driven like a browser.
struct BenchDevice: Sendable {
    let userID: String
    let client: WebAuthnClient

    init(origin: String, userID: String) {
        self.userID = userID
        self.client = WebAuthnClient(
            origin: origin, authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore()))
    }

    /// Registration: options → create → verify.
    func enroll(_ api: UMFAAPI) async throws {
        let options = try await api.registrationOptions(userID: userID)
        _ = try await api.registrationVerify(userID: userID, credential: try client.create(options, userVerified: true))
    }

    /// A complete login: options → assertion → verify → token.
    func login(_ api: UMFAAPI) async throws {
        let options = try await api.authenticationOptions(userID: userID)
        _ = try await api.authenticationVerify(userID: userID, credential: try client.get(options, userVerified: true))
    }
}
