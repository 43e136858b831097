import Foundation
import UMFAWebAuthn

/// The admin token as the server knows it: its SHA-256, never the token, and never handed out.
/// What services get is the two checks that need it: whether a presented token is the admin
/// token (in constant time), and the epoch console passkeys are enrolled under
/// (``ConsoleTokenEpoch``).
struct AdminToken: Sendable {
    private let hash: [UInt8]

    init(hash: [UInt8]) { self.hash = hash }

    /// Whether `token` is the admin token.
    func accepts(_ token: String) -> Bool { constantTimeEqual(Secrets.hash(token), hash) }

    /// The epoch of console passkeys enrolled under this token.
    var consoleEpoch: [UInt8] { ConsoleTokenEpoch.epoch(adminTokenHash: hash) }
}
