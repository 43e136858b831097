import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The admin API's view of an application's users and of the signing keys, for the console
/// (docs/contract.md §8): find a user by id or e-mail, list and delete their passkeys, issue recovery
/// codes, delete the whole account; list the signing keys (never the private keys).
extension AdminService {
    /// How many users a list without a query shows.
    static let recentUserCount = 50

    /// `GET /api/admin/applications/{id}/users?query=`: the user a query names by user id or
    /// e-mail (exactly, e-mail without regard to case), else the newest users.
    func users(values: RequestValues, caller: Caller) async throws -> AdminUserListResponse {
        let application = try await lookup(values.path("id"))
        var users: [UserRecord] = []
        if let query = values.query("query")?.trimmingCharacters(in: .whitespaces), !query.isEmpty {
            guard query.byteCount <= 256 else { throw ServiceError.invalid("query must be at most 256 bytes") }
            if let user = try await store.user(applicationID: application.id, userID: query) {
                users.append(user)
            }
            if let userID = try await store.userID(applicationID: application.id, email: query),
                !users.contains(where: { $0.userID == userID }),
                let user = try await store.user(applicationID: application.id, userID: userID)
            {
                users.append(user)
            }
        } else {
            users = try await store.recentUsers(applicationID: application.id, limit: Self.recentUserCount)
        }
        var summaries: [AdminUserSummary] = []
        for user in users {
            let profile = try await store.userProfile(applicationID: application.id, userID: user.userID)
            let credentials = try await store.credentials(applicationID: application.id, userID: user.userID)
            summaries.append(
                AdminUserSummary(
                    userID: user.userID, displayName: user.displayName, email: profile?.email,
                    createdAt: Timestamps.rfc3339(user.createdAt), credentialCount: credentials.count))
        }
        return AdminUserListResponse(traceID: caller.traceID, users: summaries)
    }

    /// `GET /api/admin/applications/{id}/users/{user_id}/credentials`.
    func userCredentials(values: RequestValues, caller: Caller) async throws -> CredentialListResponse {
        let (application, userID) = try await user(values)
        return try await CredentialService.list(
            store, application: application.id, userID: userID, caller: caller)
    }

    /// `DELETE /api/admin/applications/{id}/users/{user_id}/credentials/{credential_id}`.
    func deleteUserCredential(values: RequestValues, caller: Caller) async throws -> RemovedResponse {
        let (application, userID) = try await user(values)
        let (answer, details) = try await CredentialService.delete(
            store, application: application.id, userID: userID, credentialID: values.path("credential_id"),
            caller: caller, via: "admin")
        let credentialID = values.path("credential_id").flatMap(Base64URL.decode)
        await audit.record(
            .credentialDeleted, application: application.id, actor: .admin, userID: userID,
            credentialID: credentialID, caller: caller, details: details)
        if let credentialID {
            await signIns.revoke(
                in: application.id, userID: userID, credentialID: credentialID, actor: .admin, caller: caller,
                via: "admin")
        }
        return answer
    }

    /// `DELETE /api/admin/applications/{id}/users/{user_id}`: the whole account (404 for an
    /// unknown user).
    func deleteUser(values: RequestValues, caller: Caller) async throws {
        let application = try await lookup(values.path("id"))
        guard let userID = values.path("user_id") else {
            throw ServiceError.invalid("user_id must be percent-encoded UTF-8")
        }
        try FieldRules.checkUserID(userID)
        guard try await accounts.delete(application, userID: userID, actor: .admin, caller: caller, via: "admin")
        else { throw ServiceError.notFound("Unknown user") }
    }

    /// `POST /api/admin/applications/{id}/users/{user_id}/recovery-codes`.
    func userRecoveryCodes(values: RequestValues, caller: Caller) async throws -> RecoveryCodesResponse {
        let (application, userID) = try await user(values)
        return RecoveryCodesResponse(
            traceID: caller.traceID,
            recoveryCodes: try await recoveryCodes.issue(
                application: application.id, userID: userID, actor: .admin, caller: caller))
    }

    /// `GET /api/admin/signing-keys`: newest first.
    func signingKeys(caller: Caller) async throws -> SigningKeyListResponse {
        let keys = try await store.signingKeys().map {
            SigningKeySummary(
                kid: $0.kid, alg: $0.algorithm, createdAt: Timestamps.rfc3339($0.createdAt),
                retiredAt: $0.retiredAt.map(Timestamps.rfc3339))
        }
        return SigningKeyListResponse(traceID: caller.traceID, keys: keys)
    }

    /// The application and the existing user a path names (404 for an unknown one).
    private func user(_ values: RequestValues) async throws -> (ApplicationRecord, String) {
        let application = try await lookup(values.path("id"))
        guard let userID = values.path("user_id") else {
            throw ServiceError.invalid("user_id must be percent-encoded UTF-8")
        }
        try FieldRules.checkUserID(userID)
        guard try await store.user(applicationID: application.id, userID: userID) != nil else {
            throw ServiceError.notFound("Unknown user")
        }
        return (application, userID)
    }
}
