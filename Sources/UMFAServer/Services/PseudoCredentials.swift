import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The `allowCredentials` answered for a user without credentials (docs/contract.md §2, §4): stable
/// per user and application, derived with the server secret, and shaped like a real user's
/// list in the same application — as many ids, of the same lengths, with the same transports —
/// so the options never tell whether a user exists.
struct PseudoCredentials {
    let store: any CredentialStore
    /// The server secret the pseudo ids derive from.
    let serverSecret: [UInt8]
    let application: ApplicationRecord

    /// When the application has no credential to copy, the shape of a single platform passkey.
    static let fallbackShape = [(length: 32, transports: ["hybrid", "internal"])]

    func descriptors(for userID: String) async throws -> [CredentialDescriptor] {
        let label = "pseudo-credential:\(application.id.uuidString.lowercased()):\(userID)"
        let seed = Secrets.derive(label, key: serverSecret)
        let sample = try await store.sampleCredentials(applicationID: application.id, seed: seed)
        let shapes =
            sample.isEmpty
            ? Self.fallbackShape : sample.map { (length: $0.credentialID.count, transports: $0.transports) }
        return shapes.enumerated().map { index, shape in
            CredentialDescriptor(
                id: Base64URLBytes(derivedID(label: label, index: index, length: shape.length)),
                transports: shape.transports.map(AuthenticatorTransport.init(rawValue:)))
        }
    }

    /// `length` bytes derived from the label and the entry's position.
    private func derivedID(label: String, index: Int, length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var block = 0
        while bytes.count < length {
            bytes += Secrets.derive("\(label):\(index):\(block)", key: serverSecret)
            block += 1
        }
        return Array(bytes.prefix(length))
    }
}
