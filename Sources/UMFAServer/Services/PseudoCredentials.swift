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
    let applicationID: UUID

    /// When the application has no credential to copy, the shape of a single platform passkey.
    static let fallbackShape = [(length: 32, transports: ["hybrid", "internal"])]

    func descriptors(for userID: String) async throws -> [CredentialDescriptor] {
        descriptors(
            for: userID,
            sample: try await store.sampleCredentials(applicationID: applicationID, seed: seed(for: userID))
        )
    }

    /// The seed that picks the real user `userID`'s pseudo credentials are shaped after
    /// (``CredentialStore/sampleCredentials(applicationID:seed:)``).
    func seed(for userID: String) -> [UInt8] {
        Secrets.derive(label(userID), key: serverSecret)
    }

    private func label(_ userID: String) -> String {
        "pseudo-credential:\(applicationID.uuidString.lowercased()):\(userID)"
    }

    /// The pseudo credentials of `userID`, shaped after `sample`, the credentials
    /// ``seed(for:)`` picked.
    func descriptors(for userID: String, sample: [StoredCredential]) -> [CredentialDescriptor] {
        let label = label(userID)
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
