import Foundation
import Logging
import UMFAStorage
import UMFAWebAuthn

/// Operator passkeys end with the admin token that let them be enrolled (docs/contract.md §8).
///
/// Every passkey is stored with the epoch of the admin token it was enrolled under: a value
/// derived from the token's SHA-256, never the token. A sign-in or a session of a passkey of
/// another epoch is refused on every request, on every instance; and the first start-up with a
/// new admin token deletes those passkeys and their sessions (under the lock migrations take,
/// so instances starting together do it once) and records `admin.passkeys_revoked`.
struct ConsoleTokenEpoch: Sendable {
    let adminToken: AdminToken
    let store: any ConsoleStore
    let audit: AuditLog
    let logger: Logger

    /// The epoch of the server's admin token.
    var current: [UInt8] { adminToken.consoleEpoch }

    /// The epoch of an admin token, from its SHA-256.
    static func epoch(adminTokenHash: [UInt8]) -> [UInt8] {
        Secrets.derive("umfa-console-token-epoch", key: adminTokenHash)
    }

    /// Removes the passkeys and sessions the admin token no longer vouches for, with an audit
    /// event when there were any.
    func enforce() async throws {
        let removed = try await store.revokeConsoleCredentials(exceptEpoch: current)
        guard removed.credentials > 0 || removed.sessions > 0 else { return }
        logger.info(
            "the admin token changed: every console passkey of the previous token was removed",
            metadata: [
                "console.passkeys_removed": .stringConvertible(removed.credentials),
                "console.sessions_ended": .stringConvertible(removed.sessions),
            ])
        await audit.record(
            .adminPasskeysRevoked, application: nil, actor: .admin,
            caller: Caller(traceID: TraceID.make(), clientAddress: "server"),
            details: [
                "reason": .string("admin_token_changed"), "passkeys": .number(Double(removed.credentials)),
                "sessions": .number(Double(removed.sessions)),
            ])
    }
}
