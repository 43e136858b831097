import Foundation
import Synchronization
import Testing
import UMFA
import UMFAEncoding
import UMFATestSupport
import UMFAWebAuthn

/// A device's storage location: a fresh temporary directory, removed by ``remove()``.
struct DeviceStorage: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-device-\(UUID().uuidString)")
    }

    var credentialsDirectory: URL { url.appendingPathComponent("credentials") }

    /// The key files in `credentials/`.
    func keyFiles() throws -> [URL] {
        guard FileManager.default.fileExists(atPath: credentialsDirectory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: credentialsDirectory.path).sorted()
            .filter { $0.hasSuffix(".json") }.map { credentialsDirectory.appendingPathComponent($0) }
    }

    /// The key file of one credential (its id in hex).
    func keyFile(credentialID: String) throws -> URL {
        let bytes = try #require(Base64URL.decode(credentialID))
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return credentialsDirectory.appendingPathComponent(hex + ".json")
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

extension LiveServer {
    /// A configuration for `app` on this server, keeping its passkeys in `storage`.
    func config(_ app: TestApplication, storage: DeviceStorage, retryCount: Int = 0) -> ZSMConfig {
        var config = ZSMConfig(hostURL: url, applicationId: app.id, applicationEnvironment: "test")
        config.storageLocation = storage.url
        config.retryCount = retryCount
        // Not a test of the SDK's timeout: a busy machine must not trip it.
        config.timeout = TimeInterval(ServerTransport.patientTimeout.components.seconds)
        return config
    }

    /// An enrollment-token provider that asks this server's backend API, as an app's backend would.
    func grants(_ app: TestApplication) -> @Sendable (String) async throws -> String? {
        { userId in try await self.enrollmentToken(app, user: userId) }
    }
}

/// The user's side of a PIN or password prompt: answers with ``secret`` (nil cancels) and
/// remembers why it was asked.
final class SecretPad: Sendable {
    private let state: Mutex<(secret: String?, prompts: [ZSMConfig.SecretPurpose])>

    init(_ secret: String?) {
        state = Mutex((secret, []))
    }

    /// What the user types from now on.
    func type(_ secret: String?) {
        state.withLock { $0.secret = secret }
    }

    var prompts: [ZSMConfig.SecretPurpose] { state.withLock { $0.prompts } }

    var provider: ZSMConfig.SecretProvider {
        { purpose in
            self.state.withLock { state in
                state.prompts.append(purpose)
                return state.secret
            }
        }
    }
}

/// The claims of a compact JWT, unverified (the server's validate-token checks the signature).
func jwtClaims(_ token: String) throws -> [String: JSONValue] {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else {
        throw TestFailure("not a compact JWT: \(token)")
    }
    return try #require(try JSONDecoder().decode(JSONValue.self, from: Data(payload)).objectValue)
}

extension JSONValue {
    /// The strings of an array.
    var strings: [String] {
        guard case .array(let elements) = self else { return [] }
        return elements.compactMap(\.stringValue)
    }

    var intValue: Int? {
        guard case .number(let number) = self else { return nil }
        return Int(exactly: number)
    }
}
