import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The admin API over the console's operator passkeys and sessions (docs/contract.md §8):
/// `/api/admin/console/credentials` and `/api/admin/console/sessions`, behind the admin token
/// (or a console session). Removing a passkey ends every session it started; each removal is
/// audited.
struct ConsoleAdminService: Sendable {
    let store: any ConsoleStore
    let audit: AuditLog
    let now: @Sendable () -> Date

    /// `GET /api/admin/console/credentials`: every operator passkey, oldest first, with the
    /// number of live sessions it started.
    func credentials(caller: Caller) async throws -> ConsoleCredentialListResponse {
        let sessions = try await store.consoleSessions(at: now())
        let counts = Dictionary(sessions.map { (Base64URL.encode($0.credentialID), 1) }, uniquingKeysWith: +)
        let credentials = try await store.consoleCredentials().map { credential in
            let id = Base64URL.encode(credential.credentialID)
            return ConsoleCredentialSummary(
                credentialID: id, name: credential.name, createdAt: Timestamps.rfc3339(credential.createdAt),
                lastUsedAt: credential.lastUsedAt.map(Timestamps.rfc3339), sessions: counts[id] ?? 0)
        }
        return ConsoleCredentialListResponse(traceID: caller.traceID, credentials: credentials)
    }

    /// `DELETE /api/admin/console/credentials/{credential_id}`: the passkey and its sessions.
    func deleteCredential(id text: String?, caller: Caller) async throws -> ConsoleCredentialRemovedResponse {
        guard let text, let id = Base64URL.decode(text), !id.isEmpty else {
            throw ServiceError.invalid("credential_id must be base64url")
        }
        let name = try await store.consoleCredential(id: id)?.name
        guard let ended = try await store.deleteConsoleCredential(id: id) else {
            throw ServiceError.notFound("Unknown console passkey")
        }
        await audit.record(
            .adminPasskeyRemoved, application: nil, actor: .admin, credentialID: id, caller: caller,
            details: ["name": .string(name ?? ""), "sessions_ended": .number(Double(ended))])
        return ConsoleCredentialRemovedResponse(traceID: caller.traceID, sessionsEnded: ended)
    }

    /// `GET /api/admin/console/sessions`: every live session, oldest first; `current` marks the
    /// session whose cookie came with the request.
    func sessions(currentHash: [UInt8]?, caller: Caller) async throws -> ConsoleSessionListResponse {
        let names = Dictionary(
            try await store.consoleCredentials().map { (Base64URL.encode($0.credentialID), $0.name) },
            uniquingKeysWith: { first, _ in first })
        let sessions = try await store.consoleSessions(at: now()).map { session in
            let credentialID = Base64URL.encode(session.credentialID)
            return ConsoleSessionSummary(
                sessionID: Base64URL.encode(session.sessionHash), credentialID: credentialID,
                passkeyName: names[credentialID] ?? "", createdAt: Timestamps.rfc3339(session.createdAt),
                expiresAt: Timestamps.rfc3339(session.expiresAt),
                current: currentHash.map { constantTimeEqual($0, session.sessionHash) } ?? false)
        }
        return ConsoleSessionListResponse(traceID: caller.traceID, sessions: sessions)
    }

    /// `DELETE /api/admin/console/sessions/{session_id}`: ends one session.
    func deleteSession(id text: String?, caller: Caller) async throws -> RemovedResponse {
        guard let text, let hash = Base64URL.decode(text), hash.count == 32 else {
            throw ServiceError.invalid("session_id must be a session id from the list of sessions")
        }
        let session = try await store.consoleSessions(at: now()).first { $0.sessionHash == hash }
        guard try await store.deleteConsoleSession(hash: hash) else {
            throw ServiceError.notFound("Unknown console session")
        }
        await audit.record(
            .adminSessionEnded, application: nil, actor: .admin, credentialID: session?.credentialID, caller: caller,
            details: ["session_id": .string(text)])
        return RemovedResponse(traceID: caller.traceID)
    }
}
